/**
 * Fuzz: 2,000 random prompt texts drawn from the nastiest characters (backticks, `${`, `*\/`,
 * quotes, backslashes, U+2028/U+2029, NUL, emoji, lone surrogates, braces, random placeholders)
 * go into one module, which must type-check strictly and, imported, render each text
 * byte-identical to the shared template module. Seeded, so a failure reproduces.
 */

import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateModule } from '../../src/codegen/index.js';
import { TemplateError } from '../../src/errors.js';
import { seededRandom } from '../../src/server/seeded-random.js';
import { listVariables, renderTemplate, type VariableType } from '../../src/template/index.js';
import { codegenPrompt, compileStrict, importModule, tempDir } from './helpers.js';

const COUNT = 2_000;
const SEED = 0x5eed;

const random = seededRandom(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const NASTY = [
  '`',
  '${',
  '${x}',
  '*/',
  '/*',
  '//',
  '"',
  "'",
  '\\',
  '\\u0041',
  '\\n',
  '\u2028',
  '\u2029',
  '\u0000',
  '\u0007',
  '\u001b',
  '\r',
  '\n',
  '\r\n',
  '\t',
  '🎉',
  '👩‍💻',
  '\ud800',
  '\udfff',
  '\udc00\ud800',
  'é',
  '\u200b',
  '\ufeff',
  '{',
  '}',
  '{{',
  '}}',
  '{{{',
  '}}}',
  ':',
  ' ',
  'a',
  'b',
  '$',
  '</script>',
  '@param',
  '*',
  '/',
  'tpl`${',
  '-->',
];
const NAMES = [
  'a',
  'user_name',
  'first-name',
  'say "hi"',
  'back\\slash',
  'tick`',
  'dollar${',
  'emoji🎉',
  'lone\ud800',
  'sep\u2028',
  'constructor',
  '__proto__',
  '2fa',
];
/** One type per name, so random placeholders never conflict. */
const TYPES: readonly VariableType[] = ['string', 'number', 'boolean', 'array', 'object'];
const typeOf = (name: string): VariableType => TYPES[NAMES.indexOf(name) % TYPES.length]!;

function placeholder(): string {
  const name = pick(NAMES);
  const spaced = random() < 0.3 ? ` ${name} ` : name;
  const hint = random() < 0.5 ? `:${typeOf(name)}` : '';
  const description = random() < 0.3 ? ` // ${pick(NASTY)}desc*/` : '';
  return `{{${spaced}${hint}${description}}}`;
}

function text(): string {
  let out = '';
  const length = Math.floor(random() * 40);
  for (let i = 0; i < length; i++) out += random() < 0.15 ? placeholder() : pick(NASTY);
  return out;
}

function value(type: VariableType): unknown {
  switch (type) {
    case 'number':
      return pick([0, -1.5, 3, 1e21, Number.NaN]);
    case 'boolean':
      return random() < 0.5;
    case 'array':
      return [text(), 1, null, { k: text() }];
    case 'object':
      return { [text()]: text(), n: [1, 2] };
    default:
      return text();
  }
}

interface Case {
  name: string;
  content: string;
  systemPrompt: string;
  values: Record<string, unknown>;
}

const cases: Case[] = [];
while (cases.length < COUNT) {
  const content = text();
  const systemPrompt = text();
  let variables;
  try {
    variables = listVariables([
      { label: 'content', text: content },
      { label: 'systemPrompt', text: systemPrompt },
    ]);
  } catch (error) {
    // A random `{{a:x}}` in the noise can give a name two types; draw again.
    if (error instanceof TemplateError) continue;
    throw error;
  }
  const values = Object.fromEntries(variables.map((variable) => [variable.name, value(variable.type)]));
  cases.push({ name: `@fuzz/p-${cases.length}`, content, systemPrompt, values });
}

const source = generateModule(
  cases.map((c) => codegenPrompt(c.name, { content: c.content, systemPrompt: c.systemPrompt, title: text(), description: text() })),
);

let mod: { prompts: Record<string, (variables?: Record<string, unknown>) => { content: string; systemPrompt: string | null }> };
let cleanup: () => Promise<void>;
beforeAll(async () => {
  const dir = await tempDir('fuzz');
  cleanup = dir.remove;
  mod = await importModule(source, dir.dir);
});
afterAll(() => cleanup());

it(`${COUNT} nasty texts render byte-identical to renderTemplate`, () => {
  let compared = 0;
  for (const c of cases) {
    const fn = mod.prompts[c.name]!;
    const out = Object.keys(c.values).length === 0 ? fn() : fn(c.values);
    expect(out.content, c.name).toBe(renderTemplate(c.content, c.values));
    expect(out.systemPrompt, c.name).toBe(renderTemplate(c.systemPrompt, c.values));
    compared++;
  }
  expect(compared).toBe(COUNT);
});

it('the fuzz module type-checks in strict mode', { timeout: 180_000 }, () => {
  expect(compileStrict({ '/prompts.ts': source })).toEqual([]);
});
