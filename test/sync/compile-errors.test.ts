/**
 * The app's compile errors in the pull-request body (`sync --typecheck`, docs/ci.md): read from
 * the compiler's output in either of its formats, listed file and line first, bounded, and kept
 * inside code spans whatever the compiler quotes.
 */
import { describe, expect, it } from 'vitest';
import { type AppTypecheck, compileErrorsSection, parseCompileErrors } from '../../src/sync/compile-errors.js';

const ROOT = '/work/app';

describe('parseCompileErrors', () => {
  it.each([
    [
      "tsc's plain output, behind npm's banner",
      '\n> app@1.0.0 typecheck\n> tsc --noEmit\n\nsrc/app.ts(5,3): error TS2353: Object literal may only specify known properties.\n  Elaboration on a second line.\n',
      [{ file: 'src/app.ts', line: 5, column: 3, code: 'TS2353', message: 'Object literal may only specify known properties.' }],
    ],
    [
      'tsc --pretty, colours and all',
      '\u001b[96msrc/app.ts\u001b[0m:\u001b[93m12\u001b[0m:\u001b[93m7\u001b[0m - \u001b[91merror\u001b[0m\u001b[90m TS2345: \u001b[0mArgument of type is not assignable.\n\n12   reply({});\n',
      [{ file: 'src/app.ts', line: 12, column: 7, code: 'TS2345', message: 'Argument of type is not assignable.' }],
    ],
    [
      'an absolute path inside the project becomes relative; one outside stays',
      '/work/app/src/a.ts(1,1): error TS1005: x\r\n/elsewhere/b.ts(2,2): error TS1005: y\r\n',
      [
        { file: 'src/a.ts', line: 1, column: 1, code: 'TS1005', message: 'x' },
        { file: '/elsewhere/b.ts', line: 2, column: 2, code: 'TS1005', message: 'y' },
      ],
    ],
    [
      'a project-wide error has no file',
      "error TS5023: Unknown compiler option 'bogus'.\n",
      [{ file: undefined, line: undefined, column: undefined, code: 'TS5023', message: "Unknown compiler option 'bogus'." }],
    ],
    ['no error in a form it reads', 'Found 0 errors.\nsomething else failed\n', []],
  ])('%s', (_name, output, want) => {
    expect(parseCompileErrors(output, ROOT)).toEqual(want);
  });

  it('keeps 300 characters of a message', () => {
    const [error] = parseCompileErrors(`src/a.ts(1,1): error TS2322: ${'x'.repeat(1000)}\n`, ROOT);
    expect(error!.message).toHaveLength(300);
    expect(error!.message.endsWith('…')).toBe(true);
  });
});

describe('compileErrorsSection', () => {
  const failed = (errors: Extract<AppTypecheck, { status: 'failed' }>['errors']): AppTypecheck => ({
    status: 'failed',
    command: 'npm run typecheck',
    exitCode: 2,
    errors,
    lastLines: [],
    timedOut: false,
  });

  it('lists each error file and line first, the compiler text in code spans', () => {
    const errors = parseCompileErrors(
      "src/app.ts(5,3): error TS2353: Object literal may only specify known properties, and 'customer_name' does not exist.\nerror TS5023: Unknown compiler option 'x'.\n",
      ROOT,
    );
    expect(compileErrorsSection(failed(errors))).toEqual([
      '#### Compile errors',
      '',
      '`npm run typecheck` fails after this update with 2 errors: each is a call site to update.',
      '',
      "- `src/app.ts:5` TS2353: `Object literal may only specify known properties, and 'customer_name' does not exist.`",
      "- TS5023: `Unknown compiler option 'x'.`",
      '',
    ]);
  });

  it('lists at most 30 and counts the rest', () => {
    const output = Array.from({ length: 45 }, (_, i) => `src/app.ts(${i + 1},1): error TS2304: Cannot find name 'x${i}'.`).join('\n');
    const lines = compileErrorsSection(failed(parseCompileErrors(output, ROOT)));
    expect(lines.filter((line) => line.startsWith('- `src/app.ts:'))).toHaveLength(30);
    expect(lines).toContain('- …and 15 more errors: run `npm run typecheck` on this branch.');
  });

  it('keeps markdown the compiler quotes from a prompt or a file inside its code span', () => {
    const hostile = "Type '`@team` <img src=x> [link](http://x) ``' is not assignable.";
    const [line] = compileErrorsSection(failed(parseCompileErrors(`src/a.ts(1,1): error TS2322: ${hostile}\n`, ROOT))).filter((l) =>
      l.startsWith('- '),
    );
    expect(line).toBe(`- \`src/a.ts:1\` TS2322: \`\`\`${hostile}\`\`\``);
  });

  it('says when the app type-checks, when it could not be checked, and what a failure without readable errors printed', () => {
    expect(compileErrorsSection({ status: 'passed', command: 'tsc --noEmit' })).toEqual([
      '`tsc --noEmit` passes after this update: no call site in this app needs a change.',
      '',
    ]);
    expect(compileErrorsSection({ status: 'skipped', reason: 'it has no "typecheck" script and TypeScript is not installed' })).toEqual([
      '_The app was not type-checked: it has no "typecheck" script and TypeScript is not installed._',
      '',
    ]);
    const crashed = { ...failed([]), exitCode: 1, lastLines: ['vue-tsc: something `odd`'] } as AppTypecheck;
    expect(compileErrorsSection(crashed)).toEqual([
      '#### Compile errors',
      '',
      '`npm run typecheck` failed (exit code 1) after this update, with no compiler error in a form promptlock reads. Its last lines:',
      '',
      '- `` vue-tsc: something `odd` ``',
      '',
    ]);
  });
});
