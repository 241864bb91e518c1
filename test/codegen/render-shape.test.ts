/**
 * The fast shape of a generated function (README, "The generated module"): its array and object
 * fields are module constants, deeply frozen and shared by every call; texts with few placeholders
 * are concatenated directly, larger ones joined from parts; variables are read by a fast path for
 * plain objects whose every other case still goes through the full check. Each rendered text must
 * equal the template module's `renderTemplate`, in both text shapes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIRECT_PLACEHOLDERS } from '../../src/codegen/compile-text.js';
import { generateModule, generateModuleFiles } from '../../src/codegen/index.js';
import { constantPrefix } from '../../src/codegen/prompt-to-function.js';
import { renderTemplate } from '../../src/template/index.js';
import type { Prompt } from '../../src/types.js';
import { codegenPrompt, compileStrict, importModule, tempDir } from './helpers.js';

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

describe('constant fields', () => {
  const item = codegenPrompt('@acme/welcome', {
    content: 'Hi {{name}}',
    tags: ['a', 'b'],
    context: [{ id: 'ctx_1', type: 'url', url: 'https://example.com', createdAt: 1 }],
    metadata: { createdAt: 5, nested: { deep: [1] } },
    author: { name: 'kept' },
  } as Partial<Prompt>);
  let mod: Module;
  beforeAll(async () => {
    mod = await load(generateModule([item]));
  });

  it('are the same frozen objects on every call, while the returned object is new and writable', () => {
    const a = mod.welcome!({ name: 'Ada' });
    const b = mod.welcome!({ name: 'Bob' });
    expect(a).not.toBe(b);
    for (const key of ['tags', 'context', 'metadata', 'author']) {
      expect(a[key], key).toBe(b[key]);
      expect(Object.isFrozen(a[key]), key).toBe(true);
    }
    expect(Object.isFrozen((a.context as object[])[0])).toBe(true);
    expect(Object.isFrozen((a.metadata as { nested: object }).nested)).toBe(true);
    expect(Object.isFrozen((a.metadata as { nested: { deep: object } }).nested.deep)).toBe(true);
    expect(a.tags).toEqual(['a', 'b']);
    a.content = 'changed';
    expect(a.content).toBe('changed');
    expect(b.content).toBe('Hi Bob');
  });

  it('throw a TypeError when changed (strict mode) and stay as generated', () => {
    const a = mod.welcome!({ name: 'Ada' });
    expect(() => (a.tags as string[]).push('x')).toThrow(TypeError);
    expect(() => {
      (a.metadata as Record<string, unknown>).createdAt = 6;
    }).toThrow(TypeError);
    expect(() => {
      ((a.context as object[])[0] as Record<string, unknown>).id = 'other';
    }).toThrow(TypeError);
    expect(() => {
      (a.author as Record<string, unknown>).name = 'other';
    }).toThrow(TypeError);
    expect(mod.welcome!({ name: 'Ada' })).toMatchObject({ tags: ['a', 'b'], metadata: { createdAt: 5 }, author: { name: 'kept' } });
  });

  it('are typed read-only: changing one is a compile error, reading and copying are not', () => {
    const app = `import { welcome } from './prompts.js';
const a = welcome({ name: 'Ada' });
const tags: readonly string[] = a.tags;
const copy: string[] = [...a.tags];
const id: string = a.context[0]!.id;
a.content = 'mine';
export { tags, copy, id };
`;
    const source = generateModule([item]);
    expect(compileStrict({ '/prompts.ts': source, '/app.ts': app })).toEqual([]);
    const mutating = `import { welcome } from './prompts.js';
const a = welcome({ name: 'Ada' });
a.tags.push('x');
`;
    expect(compileStrict({ '/prompts.ts': source, '/app.ts': mutating }).join('\n')).toMatch(/TS2339 Property 'push' does not exist/);
  });

  it('are named apart from every export name, even ones that start with $', async () => {
    expect(constantPrefix(['welcome', 'other'])).toBe('$');
    expect(constantPrefix(['welcome', '$$x', '$y'])).toBe('$$$');
    expect(generateModule([item])).toContain('const $tags$welcome = /* @__PURE__ */ $freeze(["a","b"]);');
    // A recorded export name that spells the constant of another prompt.
    const x = codegenPrompt('@acme/x', { tags: ['x'] });
    x.entry.exportName = 'x';
    const taken = codegenPrompt('@acme/taken', { tags: ['taken'] });
    taken.entry.exportName = '$tags$x';
    const source = generateModule([x, taken]);
    expect(source).toContain('const $$tags$x = /* @__PURE__ */ $freeze(["x"]);');
    expect(compileStrict({ '/prompts.ts': source })).toEqual([]);
    const mod = await load(source);
    expect(mod.x!().tags).toEqual(['x']);
    expect(mod.$tags$x!().tags).toEqual(['taken']);
  });
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
];

describe('rendered texts equal renderTemplate', () => {
  const variables = { a: 'A$&`${x}', b: 2 };
  const many = Array.from({ length: DIRECT_PLACEHOLDERS + 1 }, (_, i) => `{{v${i % 5}}}-`).join('');
  const items = [
    ...TEXTS.map(([, text], i) => codegenPrompt(`@acme/text-${i}`, { content: text, systemPrompt: `sys ${text}` })),
    codegenPrompt('@acme/many', { content: many, systemPrompt: '{{v0}} and {{v4}}' }),
  ];
  const manyValues = { v0: 'zero', v1: 1, v2: [2], v3: { three: 3 }, v4: null };
  let ts: Module;
  let js: Module;
  beforeAll(async () => {
    const source = generateModule(items);
    ts = await load(source);
    const [code] = generateModuleFiles(items, { outputPath: `${dir.dir}/prompts.js` });
    js = await load(code!.content);
  });

  it.each(TEXTS.map(([label], i) => [label, i] as const))('%s (direct concatenation)', (_, i) => {
    const prompt = items[i]!.prompt;
    for (const mod of [ts, js]) {
      const out = mod[`text${i}`]!(variables);
      expect(out.content).toBe(renderTemplate(prompt.content, variables));
      expect(out.systemPrompt).toBe(renderTemplate(prompt.systemPrompt!, variables));
    }
  });

  it('a prompt over the direct limit joins its parts, with the same result', () => {
    const source = generateModule([items.at(-1)!]);
    expect(source).toContain('const v = $values("@acme/many"');
    expect(source).toContain('$join(v, [');
    for (const mod of [ts, js]) {
      const out = mod.many!(manyValues);
      expect(out.content).toBe(renderTemplate(many, manyValues));
      expect(out.systemPrompt).toBe('zero and null');
    }
  });

  it('a prompt within it concatenates directly, reading each value once', () => {
    const source = generateModule([items[0]!]);
    expect(source).toContain('content: v0 + " middle " + v1,');
    expect(source).not.toContain('$join');
    expect(source).not.toContain('$values');
  });
});

describe('reading variables', () => {
  const item = codegenPrompt('@acme/read', { content: '{{name}} {{count:number}} {{constructor}} {{__proto__}} {{odd name}}' });
  let mod: Module;
  const good = () => ({ name: 'Ada', count: 3, constructor: 'c', __proto__: 'ignored', 'odd name': 'o' });
  beforeAll(async () => {
    mod = await load(generateModule([item]));
  });

  it('takes own values of any type, from plain, class and null-prototype objects', () => {
    const plain: Record<string, unknown> = { name: 'Ada', count: 3, constructor: 'c', 'odd name': 'o' };
    Object.defineProperty(plain, '__proto__', { value: 'p', enumerable: true });
    expect(mod.read!(plain).content).toBe('Ada 3 c p o');
    const bare = Object.assign(Object.create(null), plain);
    Object.defineProperty(bare, '__proto__', { value: 'p', enumerable: true });
    expect(mod.read!(bare).content).toBe('Ada 3 c p o');
    class Values {
      name = 'Ada';
      count = [3];
      constructor() {
        Object.defineProperty(this, 'constructor', { value: 'c', enumerable: true });
        Object.defineProperty(this, '__proto__', { value: 'p', enumerable: true });
        Object.defineProperty(this, 'odd name', { value: 'o', enumerable: true });
      }
    }
    expect(mod.read!(new Values()).content).toBe('Ada [3] c p o');
  });

  it('never takes an inherited value: constructor and __proto__ of a plain object are missing', () => {
    expect(() => mod.read!({ name: 'Ada', count: 3 })).toThrow('Prompt "@acme/read" is missing variable "constructor".');
    const values = good();
    // The literal's __proto__ sets the prototype, so the object has no own "__proto__".
    expect(() => mod.read!(values)).toThrow('Prompt "@acme/read" is missing variable "__proto__".');
    expect(() => mod.read!(Object.create({ name: 'x', count: 1 }))).toThrow('missing variable "name"');
  });

  it('never takes a value from a polluted Object.prototype', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.name = 'polluted';
    try {
      expect(() => mod.read!({ count: 3 })).toThrow('Prompt "@acme/read" is missing variable "name".');
      const own: Record<string, unknown> = { name: 'Ada', count: 3, constructor: 'c', 'odd name': 'o' };
      Object.defineProperty(own, '__proto__', { value: 'p', enumerable: true });
      expect(mod.read!(own).content).toBe('Ada 3 c p o');
    } finally {
      delete proto.name;
    }
  });

  it('names what is wrong when the variables are not an object', () => {
    expect(() => mod.read!(null)).toThrow('Prompt "@acme/read" takes its variables as an object, got null.');
    expect(() => mod.read!('name=Ada')).toThrow('Prompt "@acme/read" takes its variables as an object, got string.');
  });
});
