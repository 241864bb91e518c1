/**
 * The shape of a generated function (docs/generated-module.md): one shape for every prompt,
 * one checked read of the variables into locals named after them, each text one template literal
 * with the variables inline, and a fresh object per call. Each rendered text must equal the
 * template module's `renderTemplate`, hostile texts included, and a text's length (lines or
 * placeholders) never deepens the code the type checker reads.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateModule, generateModuleFiles, typecheckModule } from '../../src/codegen/index.js';
import { localNames } from '../../src/codegen/prompt-to-function.js';
import { check, generate } from '../../src/library.js';
import { renderTemplate } from '../../src/template/index.js';
import type { Prompt } from '../../src/types.js';
import { codegenPrompt, compileStrict, importModule, tempDir, writeStore } from './helpers.js';

type Fn = (variables?: unknown) => Record<string, unknown> & { content: string; systemPrompt: string | null };
type Module = Record<string, Fn>;

let dir: { dir: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir('render-shape');
});
afterAll(() => dir.remove());

let counter = 0;
async function load(source: string): Promise<Module> {
  return importModule<Module>(source, dir.dir, `module-${counter++}`);
}

describe('one shape, reading like the prompt', () => {
  const item = codegenPrompt('@acme/welcome', {
    content: 'Hello {{customer_name}},\nyou have {{count:number}} messages.',
    systemPrompt: 'Answer in {{first-language}}.',
    tags: ['a', 'b'],
    context: [{ id: 'ctx_1', type: 'url', url: 'https://example.com', createdAt: 1 }],
    metadata: { createdAt: 5, nested: { deep: [1] } },
    author: { name: 'kept' },
  } as Partial<Prompt>);

  it('reads the variables once into locals and writes each text as one literal with them inline', () => {
    const source = generateModule([item]);
    expect(source).toContain(
      '  const [customer_name, count, first_language] = $readVariables("@acme/welcome", variables, ["customer_name", "count", "first-language"]);\n',
    );
    expect(source).toContain('    content: `Hello ${customer_name},\nyou have ${count} messages.`,\n');
    expect(source).toContain('    systemPrompt: `Answer in ${first_language}.`,\n');
    expect(source).toContain('    tags: ["a", "b"],\n');
    expect(source).toContain('    metadata: { createdAt: 5, nested: { deep: [1] } },\n');
    expect(source).toContain('    author: { name: "kept" },\n');
    // One helper, named for what it does; no constants, no fast path.
    expect(source.match(/^function \$\w+/gm)).toEqual(['function $readVariables']);
    expect(source).not.toMatch(/\$freeze|\$proto|\$plain|\$join|\$values|\$empty|\$value\b/);
  });

  it('returns a fresh object each call, arrays and objects included', async () => {
    const mod = await load(generateModule([item]));
    const a = mod.welcome!({ customer_name: 'Ada', count: 2, 'first-language': 'en' });
    const b = mod.welcome!({ customer_name: 'Bob', count: 3, 'first-language': 'fr' });
    expect(a.tags).not.toBe(b.tags);
    expect(a).toMatchObject({ tags: ['a', 'b'], metadata: { createdAt: 5, nested: { deep: [1] } }, author: { name: 'kept' } });
    expect(a.content).toBe('Hello Ada,\nyou have 2 messages.');
    expect(b.systemPrompt).toBe('Answer in fr.');
  });

  it('names locals apart from reserved words, the parameter and each other, deterministically', () => {
    expect([...localNames(['class', 'variables', 'a-b', 'a_b', '2x', 'é', 'then']).values()]).toEqual([
      'class2',
      'variables2',
      'a_b',
      'a_b2',
      '_2x',
      '_',
      'then2',
    ]);
  });

  it('leaves a variable no emitted text uses without a local (no unused locals), still checked', async () => {
    const omitted = codegenPrompt('@acme/omitted', { content: 'C {{a}}', systemPrompt: 'S {{b}} {{c}}' });
    const [code] = generateModuleFiles([omitted], { outputPath: `${dir.dir}/omitted.ts`, omit: ['systemPrompt'] });
    expect(code!.content).toContain('const [a] = $readVariables("@acme/omitted", variables, ["a", "b", "c"]);');
    expect(compileStrict({ '/prompts.ts': code!.content })).toEqual([]);
    const only = codegenPrompt('@acme/only', { content: 'C', systemPrompt: 'S {{b}}' });
    const [none] = generateModuleFiles([only], { outputPath: `${dir.dir}/only.ts`, omit: ['systemPrompt'] });
    expect(none!.content).toContain('\n  $readVariables("@acme/only", variables, ["b"]);\n');
  });
});

describe('a text never deepens the code', () => {
  it('100,000 lines with a few placeholders type-check under --strict and pass check', async () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => (i % 10_000 === 0 ? `line {{v${i / 10_000}}}` : `x${i}`));
    const item = codegenPrompt('@acme/long', { content: lines.join('\n') });
    const source = generateModule([item]);
    expect(compileStrict({ '/prompts.ts': source })).toEqual([]);
    expect(await typecheckModule(source)).toEqual([]);
    const mod = await load(source);
    const values = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`v${i}`, `V${i}`]));
    expect(mod.long!(values).content).toBe(renderTemplate(item.prompt.content, values));
    // `check` of a project holding it: snapshots, module and its type check.
    const project = path.join(dir.dir, 'long-project');
    await mkdir(project, { recursive: true });
    await writeStore(project, [item]);
    await writeFile(path.join(project, 'prompts.config.json'), '{ "prompts": ["@acme/long"] }\n');
    expect((await generate({ cwd: project, env: {} })).written).toBe(true);
    expect(await check({ cwd: project, env: {} })).toEqual({ problems: [], checked: 1, placeholders: [] });
  }, 120_000);

  it('2,000 placeholders type-check under --strict', () => {
    const content = Array.from({ length: 2_000 }, (_, i) => `{{v${i}}}`).join(' and\n');
    expect(compileStrict({ '/prompts.ts': generateModule([codegenPrompt('@acme/many', { content })]) })).toEqual([]);
  }, 120_000);
});

/** Prompts whose texts exercise the placeholder positions and the characters code must escape. */
const TEXTS: Array<[string, string]> = [
  ['placeholder at start and end', '{{a}} middle {{b}}'],
  ['only a placeholder', '{{a}}'],
  ['adjacent placeholders', '{{a}}{{b}}{{a}}'],
  ['multi-line with CRLF', 'one {{a}}\r\ntwo\nthree {{b}}\n'],
  ['unicode', 'é 🎉 {{a}} \u2028 \u2029 \ud800 lone {{b}} 中文'],
  ['template syntax', '`${a}` ${ {{a}} } $ {{b}}$ \\` ` */ /* "q" \'s\''],
  ['braces that are not placeholders', '{{ }} {{{a}}} {single} }} {{b:number // n}}'],
  ['no placeholders', 'plain text, `${x}`\n'],
  ['escapes of every kind', '\\${a} \\\\` $${{a}} ${{{b}}} \u0000\u001b[31m \u202e\u2066 \ufeff \udc00 end\\'],
  // Kept as text (README, "Placeholders"): a `$` before a kept `{{` must not open a substitution.
  ['placeholders kept as text', '{{#if a}}{{a}}{{/if}} ${{ width: 1 }} ${{ secrets.X }} `{{"k": "`"}}` {{!-- ${x} \\ --}}$'],
  [
    'lines that read like git conflict markers',
    '<<<<<<< SEARCH\n{{a}}\n=======\n>>>>>>> REPLACE\n|||||||\n{{b}}<<<<<<< x\n======= not one',
  ],
];

describe('rendered texts equal renderTemplate', () => {
  const variables = { a: 'A$&`${x}', b: 2 };
  const items = TEXTS.map(([, text], i) => codegenPrompt(`@acme/text-${i}`, { content: text, systemPrompt: `sys ${text}` }));
  let ts: Module;
  let js: Module;
  beforeAll(async () => {
    ts = await load(generateModule(items));
    const [code] = generateModuleFiles(items, { outputPath: `${dir.dir}/prompts.js` });
    js = await load(code!.content);
  });

  it.each(TEXTS.map(([label], i) => [label, i] as const))('%s', (_, i) => {
    const prompt = items[i]!.prompt;
    for (const mod of [ts, js]) {
      const out = mod[`text${i}`]!(variables);
      expect(out.content).toBe(renderTemplate(prompt.content, variables));
      expect(out.systemPrompt).toBe(renderTemplate(prompt.systemPrompt!, variables));
    }
  });

  it('writes no line git would read as a conflict marker: each is one git wrote', () => {
    const source = generateModule(items);
    expect(source).toContain('content: `\\<<<<<<< SEARCH\n${a}\n\\=======\n\\>>>>>>> REPLACE\n\\|||||||\n${b}\\<<<<<<< x\n');
    expect(source).not.toMatch(/^(?:<{7}|>{7}|\|{7})(?: |$)|^={7}$/m);
  });
});

describe('reading variables', () => {
  // Read as the SDK reads it (README, "Placeholders"): any name a placeholder can have reaches the
  // runtime (`{{__proto__}}` never does: no reading can make it a variable).
  const item = codegenPrompt('@acme/read', { content: '{{name}} {{count:number}} {{constructor}} {{odd name}}' }, 'sdk');
  let mod: Module;
  beforeAll(async () => {
    mod = await load(generateModule([item]));
  });

  it('takes own values of any type, from plain, class and null-prototype objects', () => {
    const plain: Record<string, unknown> = { name: 'Ada', count: 3, constructor: 'c', 'odd name': 'o' };
    expect(mod.read!(plain).content).toBe('Ada 3 c o');
    const bare = Object.assign(Object.create(null), plain);
    expect(mod.read!(bare).content).toBe('Ada 3 c o');
    class Values {
      name = 'Ada';
      count = [3];
      constructor() {
        Object.defineProperty(this, 'constructor', { value: 'c', enumerable: true });
        Object.defineProperty(this, 'odd name', { value: 'o', enumerable: true });
      }
    }
    expect(mod.read!(new Values()).content).toBe('Ada [3] c o');
  });

  it('never takes an inherited value: the constructor of a plain object is missing', () => {
    expect(() => mod.read!({ name: 'Ada', count: 3, 'odd name': 'o' })).toThrow('Prompt "@acme/read" is missing variable "constructor".');
    expect(() => mod.read!(Object.create({ name: 'x', count: 1 }))).toThrow('missing variable "name"');
  });

  it('never takes a value from a polluted Object.prototype', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.name = 'polluted';
    try {
      expect(() => mod.read!({ count: 3 })).toThrow('Prompt "@acme/read" is missing variable "name".');
      expect(mod.read!({ name: 'Ada', count: 3, constructor: 'c', 'odd name': 'o' }).content).toBe('Ada 3 c o');
    } finally {
      delete proto.name;
    }
  });

  it('names what is wrong when the variables are not an object', () => {
    expect(() => mod.read!(null)).toThrow('Prompt "@acme/read" takes its variables as an object, got null.');
    expect(() => mod.read!('name=Ada')).toThrow('Prompt "@acme/read" takes its variables as an object, got string.');
  });
});
