/**
 * Item 9: watch never starves new entries. At --interval 1 a poll's share is 3 requests; with 4
 * floating prompts locked, the round-robin used to spend all 3 on re-checks, so a prompt added to
 * the config waited "for the next polls" forever. Built CLI `watch` against `promptlock serve`.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { runCliInProcess as runBuiltCli, startBuiltCli, startServe } from '../helpers/cli.js';
import { makeProject, removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';
import { waitUntil } from '../helpers/wait-until.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

const name = (i: number) => `@bulk/prompt-${String(i).padStart(4, '0')}`;

it('a prompt added to the config is synced on the next poll at --interval 1', async () => {
  const served = await writeServedFolder(await mkdtemp(path.join(tmpdir(), 'promptlock-watch-new-')), 5, 1);
  dirs.push(served);
  const serve = await startServe(['--dir', served], served);
  const project = await makeProject({ baseUrl: serve.url, prompts: [0, 1, 2, 3].map(name) });
  dirs.push(project);
  const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
  expect((await runBuiltCli(['sync'], { cwd: project, env })).code).toBe(0);

  const watch = startBuiltCli(['watch', '--interval', '1', '--verbose'], { cwd: project, env });
  try {
    // Two polls in: the 4 locked prompts are being re-checked round-robin, 3 per poll.
    await watch.waitFor(/Poll 2: checked 3/);
    await writeFile(
      path.join(project, 'prompts.config.json'),
      `${JSON.stringify({ baseUrl: serve.url, prompts: [0, 1, 2, 3, 4].map(name) }, null, 2)}\n`,
    );
    const lockfile = path.join(project, 'prompts.lock.json');
    await waitUntil(`${name(4)} in the lockfile`, async () => (await readFile(lockfile, 'utf8')).includes(name(4)));
    expect(watch.stderr()).not.toMatch(/waits for the next polls/);
    expect(await readFile(path.join(project, 'src/generated/prompts.ts'), 'utf8')).toContain(name(4));
  } finally {
    expect((await watch.stop()).code).toBe(0);
    await serve.stop();
  }
});
