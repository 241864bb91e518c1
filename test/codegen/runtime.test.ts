/**
 * The runtime helper (templates/runtime.ts) against the shared template module, and the generated
 * functions at run time: the output equals renderTemplate, a missing variable throws naming the
 * prompt and the variable.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateModule } from '../../src/codegen/index.js';
import { exportNameProblem, RUNTIME_GLOBALS } from '../../src/prompt-grammar.js';
import { renderTemplate, stringifyValue } from '../../src/template/index.js';
import { $readVariables } from '../../templates/runtime.js';
import { codegenPrompt, importModule, tempDir } from './helpers.js';

describe('$readVariables turns each value to text as stringifyValue does', () => {
  const $string = (value: unknown) => $readVariables('@a/b', { value }, ['value'])[0];
  const circular: Record<string, unknown> = {};
  const values: Array<[string, unknown]> = [
    ['string', 'text'],
    ['empty string', ''],
    ['integer', 3],
    ['negative float', -1.5],
    ['NaN', Number.NaN],
    ['-0', -0],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['true', true],
    ['false', false],
    ['null', null],
    ['bigint', 10n],
    ['symbol', Symbol('s')],
    ['array', [1, 'a', null, { b: 2 }]],
    ['empty array', []],
    ['nested object', { a: { b: [1, 2] }, c: 'd' }],
    ['object with toJSON', { toJSON: () => 'custom' }],
    ['date', new Date(0)],
    ['function', function named() {}],
    ['unicode', 'é 🎉 \u2028 \ud800'],
  ];
  it.each(values)('%s', (_, value) => expect($string(value)).toBe(stringifyValue(value)));
  // undefined is a missing value, not a text.

  it('throws like stringifyValue on what JSON cannot encode', () => {
    circular.self = circular;
    expect(() => $string(circular)).toThrow(TypeError);
    expect(() => stringifyValue(circular)).toThrow(TypeError);
  });
});

describe('$readVariables', () => {
  it('returns the values as text, in order', () => {
    expect($readVariables('@a/b', { x: 1, y: [1], z: 'z' }, ['z', 'x', 'y'] as const)).toEqual(['z', '1', '[1]']);
  });
  const missing: Array<[string, { variables: unknown; want: string }]> = [
    ['absent', { variables: { a: 'x' }, want: 'Prompt "@acme/p" is missing variable "b".' }],
    ['undefined', { variables: { a: 'x', b: undefined }, want: 'Prompt "@acme/p" is missing variable "b".' }],
    ['inherited only', { variables: Object.create({ b: 'x', a: 'y' }), want: 'Prompt "@acme/p" is missing variable "a".' }],
    ['not an object', { variables: 'a=1', want: 'Prompt "@acme/p" takes its variables as an object, got string.' }],
    ['null', { variables: null, want: 'Prompt "@acme/p" takes its variables as an object, got null.' }],
  ];
  it.each(missing)('throws for %s', (_, { variables, want }) => {
    expect(() => $readVariables('@acme/p', variables as object, ['a', 'b'] as const)).toThrow(want);
  });
});

describe('generated functions at run time', () => {
  const items = [
    codegenPrompt('@acme/support-reply', {
      systemPrompt: 'Tone: {{tone}}',
      content: 'Dear {{customer_name}},\nyou have {{count:number}} messages about {{topics:list}} {{meta:dict}} ({{urgent:bool}}).',
      critiquePrompt: 'Did we greet {{ customer_name }}?',
    }),
    codegenPrompt('@acme/welcome', { content: 'Welcome {{ }} }} {{:string}}' }),
  ];
  let mod: Record<string, (variables?: unknown) => Record<string, unknown>>;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const dir = await tempDir('runtime');
    cleanup = dir.remove;
    mod = await importModule(generateModule(items), dir.dir);
  });
  afterAll(() => cleanup());

  it('renders the three texts like renderTemplate and keeps the other fields', () => {
    const variables = { tone: 'warm', customer_name: 'Ada', count: 3, topics: ['a', 1], meta: { k: null }, urgent: false };
    const out = mod.supportReply!(variables);
    const prompt = items[0]!.prompt;
    expect(out).toEqual({
      ...prompt,
      systemPrompt: renderTemplate(prompt.systemPrompt!, variables),
      content: renderTemplate(prompt.content, variables),
      critiquePrompt: renderTemplate(prompt.critiquePrompt!, variables),
      provenance: { name: '@acme/support-reply', version: 'v1', integrity: items[0]!.entry.integrity, source: 'snapshot' },
    });
    expect(out.content).toBe('Dear Ada,\nyou have 3 messages about ["a",1] {"k":null} (false).');
  });

  it('returns a fresh object each call, its arrays too', () => {
    const a = mod.welcome!();
    expect(mod.welcome!()).not.toBe(a);
    (a.tags as string[]).push('mutated');
    expect(mod.welcome!().tags).toEqual([]);
  });

  it('throws naming the prompt and the variable when one is missing', () => {
    expect(() => mod.supportReply!({ tone: 'x', customer_name: 'Ada' })).toThrow(
      'Prompt "@acme/support-reply" is missing variable "count".',
    );
    expect(() => mod.supportReply!()).toThrow('Prompt "@acme/support-reply" takes its variables as an object, got undefined.');
  });

  it('serves every prompt under its package name', () => {
    expect(Object.keys(mod.prompts!)).toEqual(['@acme/support-reply', '@acme/welcome']);
    expect((mod.prompts as unknown as Record<string, unknown>)['@acme/welcome']).toBe(mod.welcome);
  });
});

it('a prompt without placeholders renders its text as written', async () => {
  const dir = await tempDir('literal');
  try {
    const mod = await importModule<{ welcome: () => { content: string } }>(
      generateModule([codegenPrompt('@acme/welcome', { content: 'Welcome {{ }} }} {{:string}}' })]),
      dir.dir,
    );
    expect(mod.welcome().content).toBe('Welcome {{ }} }} {{:string}}');
  } finally {
    await dir.remove();
  }
});

it('every global the runtime uses is reserved as an export name (read by the TypeScript parser)', async () => {
  const { ts } = await import('ts-morph');
  const file = fileURLToPath(new URL('../../templates/runtime.ts', import.meta.url));
  const source = ts.createSourceFile(file, await readFile(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const declared = new Set<string>();
  const used = new Set<string>();
  const visit = (node: import('ts-morph').ts.Node): void => {
    if (
      (ts.isFunctionDeclaration(node) || ts.isParameter(node) || ts.isVariableDeclaration(node)) &&
      node.name &&
      ts.isIdentifier(node.name)
    )
      declared.add(node.name.text);
    if (
      ts.isInterfaceDeclaration(node) ||
      ts.isTypeReferenceNode(node) ||
      ts.isPropertySignature(node) ||
      ts.isIndexSignatureDeclaration(node)
    )
      return;
    if (ts.isIdentifier(node) && !(ts.isPropertyAccessExpression(node.parent) && node.parent.name === node)) used.add(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  const globals = [...used].filter((name) => !declared.has(name) && name !== 'undefined').sort();
  expect(globals).toEqual([...RUNTIME_GLOBALS].sort());
  for (const name of [...globals, ...declared].filter((name) => name.startsWith('$') || /^[A-Z]/.test(name)))
    expect(exportNameProblem(name), name).toBeDefined();
});
