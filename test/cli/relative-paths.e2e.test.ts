/**
 * Messages name files relative to the folder the command runs in, whichever layer made them: a
 * write refused by the disk, a config path in a usage error, a damaged lockfile. A run in this
 * process (whose own folder is elsewhere) prints exactly what the built CLI prints.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runBuiltCli, runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';

const { project } = disposables();

it.each([
  ['a write the disk refuses', ['generate'], 'error: Cannot write gen/prompts.ts: a part of the path is a file, not a folder (ENOTDIR).'],
  ['a name the config does not ask for', ['sync', '@acme/y'], 'error: @acme/y is not requested by prompts.config.json.'],
])('%s: relative, in process as in a spawned CLI', async (_name, args, line) => {
  const dir = await project({ prompts: ['@acme/x'], output: 'gen/prompts.ts' });
  await writeFile(path.join(dir, 'prompts.lock.json'), '{ "lockfileVersion": 1, "prompts": {} }\n');
  await writeFile(path.join(dir, 'gen'), 'a file where the module folder belongs\n');
  const inProcess = await runCliInProcess(args, { cwd: dir, env: { PROMPTLOCK_API_KEY: 'sk_test_RelativePaths0000000000' } });
  expect(inProcess.stderr.split('\n')).toContain(line);
  expect(inProcess.stderr).not.toContain(dir);
  const spawned = await runBuiltCli(args, { cwd: dir, env: { PROMPTLOCK_API_KEY: 'sk_test_RelativePaths0000000000' } });
  expect({ code: spawned.code, stderr: spawned.stderr }).toEqual({ code: inProcess.code, stderr: inProcess.stderr });
});

it('a damaged lockfile, from a subfolder of the project, is named relative to the project', async () => {
  const dir = await project({ prompts: ['@acme/x'] });
  await writeFile(path.join(dir, 'prompts.lock.json'), '{ "lockfileVersion": 1,\n  "prompts": }\n');
  await writeFile(path.join(dir, 'package.json'), '{ "name": "app" }\n');
  await mkdir(path.join(dir, 'src'));
  const run = await runCliInProcess(['generate'], { cwd: path.join(dir, 'src') });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('error: Lockfile prompts.lock.json is not valid JSON at line 2, column 14: value expected.');
});
