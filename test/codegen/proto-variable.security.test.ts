/**
 * Finding 17: `{{__proto__}}` type-checked but threw "missing variable" at run time, because an
 * object literal's `__proto__` sets the prototype. No reading makes it a variable: the grammar
 * keeps it as text (README, "Placeholders"), and read as the SDK reads it the prompt is refused,
 * naming the field and line. The names of `Object.prototype` that an object literal does set as own
 * properties (`constructor`, `toString`…) type-check and render.
 */
import { expect, it } from 'vitest';
import { generateModule } from '../../src/codegen/index.js';
import { TemplateError } from '../../src/errors.js';
import { validatePrompt } from '../../src/prompt-grammar.js';
import { lockPrompt } from '../../src/sync/fetch-prompt.js';
import { readTexts } from '../../src/template/index.js';
import { promptTexts } from '../../src/types.js';
import { compileStrict, importModule, tempDir } from '../codegen/helpers.js';
import { validPrompt } from '../helpers/valid-prompt.js';

it('keeps {{__proto__}} as text by the grammar, and refuses it read as the SDK reads, saying where and why', async () => {
  for (const field of ['content', 'systemPrompt', 'critiquePrompt'] as const) {
    const prompt = validPrompt('@acme/p', { [field]: 'Hi\n{{ __proto__ }}' });
    expect(validatePrompt(prompt).ok).toBe(true);
    const read = readTexts(promptTexts(prompt), '@acme/p');
    expect(read.kept.filter((k) => k.field === field)).toEqual([
      { field, line: 2, text: '{{ __proto__ }}', why: expect.stringMatching(/cannot be passed in a JavaScript object literal/) },
    ]);
    expect(read.variables.map((v) => v.name)).not.toContain('__proto__');
    const refused = (() => {
      try {
        lockPrompt('@acme/p', null, prompt, 'sdk');
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(TemplateError);
    expect(refused).toMatchObject({
      field,
      line: 2,
      message: expect.stringMatching(/__proto__.*cannot be passed in a JavaScript object literal/),
    });
  }
  // The module renders it exactly as written.
  const prompt = validPrompt('@acme/proto-text', { content: '{{name}} {{__proto__}}' });
  const source = generateModule([{ name: '@acme/proto-text', entry: lockPrompt('@acme/proto-text', null, prompt).entry, prompt }]);
  const dir = await tempDir('proto-text');
  try {
    const module = await importModule<{ protoText: (v: object) => { content: string } }>(source, dir.dir);
    expect(module.protoText({ name: 'Ada' }).content).toBe('Ada {{__proto__}}');
  } finally {
    await dir.remove();
  }
});

it('names of Object.prototype type-check in an object literal and render at run time', async () => {
  const prompt = validPrompt('@acme/proto', { content: '{{constructor}} {{toString}} {{hasOwnProperty}} {{valueOf}}' });
  const source = generateModule([{ name: '@acme/proto', entry: lockPrompt('@acme/proto', null, prompt).entry, prompt }]);
  const app = `import { proto } from './prompts';\nexport const text: string = proto({ constructor: 'a', toString: 'b', hasOwnProperty: 'c', valueOf: 'd' }).content;\n`;
  expect(compileStrict({ '/prompts.ts': source, '/app.ts': app })).toEqual([]);
  const missing = `import { proto } from './prompts';\nproto({ toString: 'b', hasOwnProperty: 'c', valueOf: 'd' });\n`;
  expect(compileStrict({ '/prompts.ts': source, '/app.ts': missing }).join('\n')).toMatch(/constructor/);

  const dir = await tempDir('proto');
  try {
    const module = await importModule<{ proto: (v: object) => { content: string } }>(source, dir.dir);
    expect(module.proto({ constructor: 'a', toString: 'b', hasOwnProperty: 'c', valueOf: 'd' }).content).toBe('a b c d');
    // Inherited members never count as values.
    expect(() => module.proto({ toString: 'b', hasOwnProperty: 'c', valueOf: 'd' })).toThrow(
      'Prompt "@acme/proto" is missing variable "constructor".',
    );
  } finally {
    await dir.remove();
  }
});
