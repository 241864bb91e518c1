/**
 * Type tests: the generated module and an app using it, compiled by the real TypeScript compiler in
 * strict mode. Correct calls compile; a missing variable, an extra one and a wrong type do not.
 */
import { describe, expect, it } from 'vitest';
import { generateModule } from '../../src/codegen/index.js';
import { codegenPrompt, compileStrict } from './helpers.js';

const MODULE = generateModule([
  codegenPrompt('@acme/support-reply', {
    content: 'Dear {{customer_name}}, you have {{count:number // Number of unread messages}} messages.',
    systemPrompt: 'Tone: {{formal:bool}}',
    critiquePrompt: 'Check {{items:list}} and {{meta:dict}} for {{two-factor-code}}',
  }),
  codegenPrompt('@acme/welcome', { content: 'Welcome!' }),
]);

function errorsOf(app: string): string[] {
  return compileStrict({ '/prompts.ts': MODULE, '/app.ts': app });
}

const IMPORTS = `import { supportReply, welcome, prompts, type PromptName, type RenderedPrompt } from './prompts.js';\n`;
const GOOD_VARS = `{ customer_name: 'Ada', count: 3, formal: true, items: [1, 'a'], meta: { a: 1 }, 'two-factor-code': '123' }`;

describe('generated types', () => {
  it('accept correct calls', () => {
    const app = `${IMPORTS}
const a: RenderedPrompt = supportReply(${GOOD_VARS});
const b: string = welcome().content;
const c: string | null = a.systemPrompt;
const name: PromptName = '@acme/welcome';
const d = prompts[name]();
const e = prompts['@acme/support-reply'](${GOOD_VARS});
export { a, b, c, d, e };
`;
    expect(errorsOf(app)).toEqual([]);
  });

  const failing: Array<[string, { call: string; want: RegExp }]> = [
    [
      'a missing variable',
      {
        call: `supportReply({ customer_name: 'Ada', formal: true, items: [], meta: {}, 'two-factor-code': '1' })`,
        want: /TS2345 .*'count' is missing/s,
      },
    ],
    ['an extra variable', { call: `supportReply({ ${GOOD_VARS.slice(1, -1)}, extra: 1 })`, want: /TS2353 .*'extra' does not exist/s }],
    [
      'a wrong type (count: "3" for a number hint)',
      { call: `supportReply({ ...${GOOD_VARS}, count: '3' })`, want: /TS2322 .*Type 'string' is not assignable to type 'number'/s },
    ],
    ['a wrong boolean', { call: `supportReply({ ...${GOOD_VARS}, formal: 'yes' })`, want: /TS2322 .*not assignable to type 'boolean'/s }],
    [
      'a string for a list',
      { call: `supportReply({ ...${GOOD_VARS}, items: 'a,b' })`, want: /TS2322 .*not assignable to type 'unknown\[\]'/s },
    ],
    ['no argument where variables are needed', { call: `supportReply()`, want: /TS2554 Expected 1 arguments, but got 0/ }],
    ['an argument where the prompt has no variables', { call: `welcome({ x: 1 })`, want: /TS2554 Expected 0 arguments, but got 1/ }],
    ['an unknown package name', { call: `prompts['@acme/nope']`, want: /TS7053|TS2339/ }],
  ];
  it.each(failing)('reject %s', (_, { call, want }) => {
    const errors = errorsOf(`import * as m from './prompts.js';\nexport const x = m.${call};\n`);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toMatch(want);
    expect(errors.every((error) => error.startsWith('/app.ts'))).toBe(true);
  });
});
