/**
 * Finding 17: `{{__proto__}}` type-checked but threw "missing variable" at run time, because an
 * object literal's `__proto__` sets the prototype. Such a name is refused (at sync and at
 * generate: test/codegen/injection.security.e2e.test.ts), and the names of `Object.prototype` that an object
 * literal does set as own properties (`constructor`, `toString`…) type-check and render.
 */
import { expect, it } from 'vitest';
import { generateModule } from '../../src/codegen/index.js';
import { validatePrompt } from '../../src/prompt-grammar.js';
import { lockPrompt } from '../../src/sync/fetch-prompt.js';
import { compileStrict, importModule, tempDir } from '../codegen/helpers.js';
import { validPrompt } from '../helpers/valid-prompt.js';

it('refuses {{__proto__}} in any text, with a message that says why', () => {
  for (const field of ['content', 'systemPrompt', 'critiquePrompt'] as const) {
    const check = validatePrompt(validPrompt('@acme/p', { [field]: 'Hi {{ __proto__ }}' }));
    const problem = check.ok ? undefined : check.problem;
    expect(problem?.field).toBe(field);
    expect(problem?.message).toMatch(/"__proto__" cannot be passed in a JavaScript object literal/);
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
