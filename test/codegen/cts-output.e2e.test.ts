/**
 * A CommonJS app (README, "The generated module"): with `output: "….cts"` the module is a
 * CommonJS file that the real TypeScript compiler accepts under the tsconfig `tsc --init` writes
 * (`module: nodenext`, `verbatimModuleSyntax`) in a `"type": "commonjs"` package; the app's own
 * `.cts` file imports it as that setting wants, its calls are type-checked, and the compiled code
 * renders the prompts. `check` type-checks the module as CommonJS too.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
const { serve, project } = disposables();

async function run(dir: string, args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: dir, timeout: 60_000 });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, output: failed.stdout };
  }
}

const APP = `import generated = require('./generated/prompts.cjs');
import type { PromptName, RenderedPrompt } from './generated/prompts.cjs';

const name: PromptName = '@acme/welcome';
const welcome: RenderedPrompt = generated.prompts[name]();
console.log(JSON.stringify([welcome.version, generated.supportReply({ customer_name: 'Ada', count: 3, topic: 'refunds' }).content]));
`;

it('compiles under the tsconfig tsc --init writes, in a "type": "commonjs" package, and runs', async () => {
  const server = await serve({ dir: path.resolve('examples/workspace') });
  const dir = await project({
    baseUrl: server.url,
    prompts: ['@acme/support-reply', '@acme/welcome'],
    output: 'src/generated/prompts.cts',
  });
  await writeFile(path.join(dir, 'package.json'), '{ "name": "app", "version": "1.0.0", "type": "commonjs" }\n');
  expect((await run(dir, [TSC, '--init'])).code).toBe(0);
  const tsconfig = await readFile(path.join(dir, 'tsconfig.json'), 'utf8');
  // The settings at stake, as TypeScript 5.9 writes them: the test is void if they change.
  expect(tsconfig).toMatch(/^\s*"module": "nodenext",$/m);
  expect(tsconfig).toMatch(/^\s*"verbatimModuleSyntax": true,$/m);
  expect((await runCliInProcess(['sync'], { cwd: dir, env })).code).toBe(0);

  await writeFile(path.join(dir, 'src/main.cts'), APP);
  expect(await run(dir, [TSC, '-p', '.', '--pretty', 'false'])).toEqual({ code: 0, output: '' });
  const rendered = await run(dir, ['src/main.cjs']);
  expect(JSON.parse(rendered.output)).toEqual([
    'v2',
    'Hello Ada,\n\nYou have 3 unread messages about refunds.\nQuote the policy when it applies.',
  ]);
  expect((await runCliInProcess(['check'], { cwd: dir, env: {} })).code).toBe(0);

  // A call with a wrong type fails the app's build, as in an ES module app.
  await writeFile(path.join(dir, 'src/main.cts'), APP.replace('count: 3', "count: 'three'"));
  const bad = await run(dir, [TSC, '-p', '.', '--pretty', 'false', '--noEmit']);
  expect(bad.code).not.toBe(0);
  expect(bad.output.trim()).toMatch(/^src\/main\.cts\(6,\d+\): error TS2322: Type 'string' is not assignable to type 'number'\.$/);
});
