/**
 * Item 9: watch never starves new entries. At --interval 1 a poll's share is 3 requests; with 4
 * floating prompts locked, the round-robin used to spend all 3 on re-checks, so a prompt added to
 * the config waited "for the next polls" forever. Built CLI `watch` against `promptlock serve`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { BIN, runBuiltCli } from '../helpers/cli.js';
import { makeProject, removeDir } from '../helpers/project.js';
import { startServe } from '../helpers/serve-process.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

const name = (i: number) => `@bulk/prompt-${String(i).padStart(4, '0')}`;

async function until(check: () => Promise<boolean> | boolean, tries = 300): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

it('a prompt added to the config is synced on the next poll at --interval 1', async () => {
  const served = await writeServedFolder(await mkdtemp(path.join(tmpdir(), 'promptlock-watch-new-')), 5, 1);
  dirs.push(served);
  const serve = await startServe(['--dir', served], served);
  const project = await makeProject({ baseUrl: serve.url, prompts: [0, 1, 2, 3].map(name) });
  dirs.push(project);
  const env = { ...process.env, PROMPTLOCK_API_KEY: LOCAL_TEST_KEY, CI: 'true', NO_COLOR: '1' };
  expect((await runBuiltCli(['sync'], { cwd: project, env })).code).toBe(0);

  const watch = spawn(process.execPath, [BIN, 'watch', '--interval', '1', '--verbose'], {
    cwd: project,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  watch.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => watch.on('exit', (code) => resolve(code)));
  try {
    // Two polls in: the 4 locked prompts are being re-checked round-robin, 3 per poll.
    expect(await until(() => /Poll 2: checked 3/.test(err))).toBe(true);
    await writeFile(
      path.join(project, 'prompts.config.json'),
      `${JSON.stringify({ baseUrl: serve.url, prompts: [0, 1, 2, 3, 4].map(name) }, null, 2)}\n`,
    );
    const lockfile = path.join(project, 'prompts.lock.json');
    const synced = await until(async () => (await readFile(lockfile, 'utf8')).includes(name(4)));
    expect(err).not.toMatch(/waits for the next polls/);
    expect(synced).toBe(true);
    expect(await readFile(path.join(project, 'src/generated/prompts.ts'), 'utf8')).toContain(name(4));
  } finally {
    watch.kill('SIGINT');
    expect(await exited).toBe(0);
    await serve.stop();
  }
});
