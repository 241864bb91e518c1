/**
 * A compiled `prompts.js` older than the module beside it (a plain `tsc` without `outDir`, run
 * before the module changed) is what a bundler takes instead of the module: `generate` and `check`
 * warn of it, naming both files relative to the project, and exit as they would without it; one
 * compiled from the module as it is now is not warned of. In process, against the local service.
 */
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';

const { serve, project, folder } = disposables();
const WARNING =
  'warning: src/generated/prompts.js is older than the module src/generated/prompts.ts beside it (compiled before the module changed?): a bundler that imports "./prompts.js" takes it instead, with the old prompts. Delete it, and set "outDir" (or "noEmit") in tsconfig.json so that `tsc` writes no JavaScript beside the module.';

it('generate and check warn of a stale compiled module, and only of a stale one', async () => {
  const server = await serve({ dir: await folder({ 'ws/alpha/v1.md': 'Alpha {{name}}' }) });
  const dir = await project({ baseUrl: server.url, prompts: ['@ws/alpha'] });
  expect((await runCliInProcess(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY } })).code).toBe(0);
  const compiled = path.join(dir, 'src/generated/prompts.js');
  await mkdir(path.dirname(compiled), { recursive: true });
  await writeFile(compiled, 'export function alpha() {}\n');
  const past = new Date(Date.now() - 60_000);
  await utimes(compiled, past, past);

  const generate = await runCliInProcess(['generate'], { cwd: dir });
  expect(generate.code).toBe(0);
  expect(generate.stderr.split('\n')).toContain(WARNING);
  const check = await runCliInProcess(['check', '--no-typecheck'], { cwd: dir });
  expect(check.code).toBe(0);
  expect(check.stderr.split('\n')).toContain(WARNING);

  // Compiled again from the module as it is: nothing to say.
  const now = new Date(Date.now() + 1000);
  await utimes(compiled, now, now);
  expect((await runCliInProcess(['generate'], { cwd: dir })).stderr).not.toContain('warning');
  expect((await runCliInProcess(['check', '--no-typecheck'], { cwd: dir })).stderr).not.toContain('warning');
});
