/**
 * `sync --frozen` names each file it restored (README, "Commands"): a snapshot edited by hand and
 * one deleted are put back at the locked version, each said on its own line with why, and in
 * `--json`'s `restored`; the warning `generate` gives for the edited one names the command that
 * does it. In process, against the real local service.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project, folder } = disposables();

it('restores an edited and a missing snapshot, naming each, and generate points at it', async () => {
  const served = await folder({ 'ws/alpha/v1.md': 'Alpha {{name}}', 'ws/beta/v1.md': 'Beta', 'ws/gamma/v1.md': 'Gamma' });
  const server = await serve({ dir: served });
  const dir = await project({ baseUrl: server.url, prompts: ['@ws/alpha', '@ws/beta', '@ws/gamma'] });
  expect((await runCliInProcess(['sync'], { cwd: dir, env })).code).toBe(0);
  const alpha = path.join(dir, 'prompts/ws/alpha.json');
  const beta = path.join(dir, 'prompts/ws/beta.json');
  const original = { alpha: await readFile(alpha, 'utf8'), beta: await readFile(beta, 'utf8') };

  await writeFile(beta, original.beta.replace('Beta', 'Beta, edited'));
  const generate = await runCliInProcess(['generate'], { cwd: dir, env: {} });
  expect(generate.code).toBe(0);
  expect(generate.stderr).toContain('Run `promptlock sync --frozen` to restore the locked version (or restore it from git)');
  await rm(alpha);

  const run = await runCliInProcess(['sync', '--frozen'], { cwd: dir, env });
  expect(run.code).toBe(0);
  const lines = run.stderr.trim().split('\n').slice(1); // after the progress line
  expect(lines[0]).toMatch(/^✔ Verified 3 prompts in [\d.]+ s and restored 2 files as the lockfile locks them \(2 requests\)$/);
  expect(lines.slice(1)).toEqual([
    '  restored prompts/ws/alpha.json  @ws/alpha v1 (it was missing)',
    '  restored prompts/ws/beta.json  @ws/beta v1 (it did not match the lockfile: edited by hand?)',
    // generate built the module from the edited snapshot; it is rebuilt from the restored one.
    '  rewrote src/generated/prompts.ts from the lockfile and snapshots',
  ]);
  expect(await readFile(alpha, 'utf8')).toBe(original.alpha);
  expect(await readFile(beta, 'utf8')).toBe(original.beta);

  await writeFile(beta, original.beta.replace('Beta', 'Beta, edited'));
  const json = await runCliInProcess(['sync', '--frozen', '--json'], { cwd: dir, env });
  expect(json.code).toBe(0);
  expect(JSON.parse(json.stdout).restored).toEqual([{ name: '@ws/beta', version: 'v1', file: 'prompts/ws/beta.json', reason: 'differed' }]);

  // Nothing left to restore: nothing said but that all is up to date.
  const again = await runCliInProcess(['sync', '--frozen'], { cwd: dir, env });
  expect(again.stderr).toMatch(/\n✔ 3 prompts up to date, no file changed [^\n]*\n$/);
});
