/**
 * Issue 19, item 16: `.env` and `.env.local` come with the repository. Only regular files are
 * read, and only up to 1 MiB: a FIFO hung `generate` (so `npm install`), a link to /dev/zero grew
 * the process by gigabytes. Through the built CLI, each run bounded and killed by PID if it hangs.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';

const { project, defer } = disposables();

async function generate(dir: string) {
  return runBuiltCli(['generate'], { cwd: dir });
}

it('refuses a FIFO named .env at once, instead of waiting forever', async () => {
  const dir = await project({ prompts: ['@acme/a'] });
  expect(spawnSync('mkfifo', [path.join(dir, '.env')]).status).toBe(0);
  const run = await generate(dir);
  expect(run.signal).toBeNull();
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('.env: it is a FIFO (named pipe), and promptlock reads env files only when they are regular files');
  expect(run.stderr).toContain('Replace .env with a regular file');
});

it('refuses a .env.local that links to /dev/zero, without reading it', async () => {
  const dir = await project({ prompts: ['@acme/a'] });
  await symlink('/dev/zero', path.join(dir, '.env.local'));
  const run = await generate(dir);
  expect(run.signal).toBeNull();
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('.env.local: it is a device');
});

it('refuses a .env over 1 MiB, and reads one that links to a regular file', async () => {
  const dir = await project({ prompts: ['@acme/a'] });
  await writeFile(path.join(dir, '.env'), `PADDING=${'x'.repeat(1024 * 1024)}\n`);
  const run = await generate(dir);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('.env: it holds more than 1048576 bytes');

  const shared = await mkdtemp(path.join(tmpdir(), 'promptlock-shared-env-'));
  defer(() => removeDir(shared));
  await writeFile(path.join(shared, 'env'), `PROMPTLOCK_API_KEY=sk_live_${'e'.repeat(40)}\n`);
  await writeFile(path.join(dir, '.env'), '# no variables\n');
  await symlink(path.join(shared, 'env'), path.join(dir, '.env.local'));
  expect((await loadConfig({ cwd: dir, env: {} })).apiKey).toBe(`sk_live_${'e'.repeat(40)}`);
  expect((await generate(dir)).code).toBe(0);
});
