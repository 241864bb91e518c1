/**
 * Security regression (issue 30, item 2): `.promptlock/` comes with a checkout like any folder
 * (a file there may be committed with `git add -f`). Its `.gitignore` committed as a link made
 * `promptlock generate` (the `prepare` script of every `npm install`) overwrite the file it points
 * at with `*\n`. Every file promptlock writes goes through one writer that never follows a link:
 * refused, naming the link. Through the built CLI, as `prepare` runs it.
 */
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runBuiltCli, runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';

const { project, defer } = disposables();
/** A pid no process can have (above the kernel's largest): what a run killed long ago left. */
const DEAD_PID = 4_194_305;

it('a committed .promptlock/.gitignore linked to a file of the user: generate refuses, naming the link, and the file keeps its bytes', async () => {
  const away = await mkdtemp(path.join(tmpdir(), 'promptlock-outside-'));
  defer(() => rm(away, { recursive: true, force: true }));
  const victim = path.join(away, 'bashrc');
  await writeFile(victim, 'export PATH=$HOME/bin:$PATH\n');
  const dir = await project({ prompts: [] });
  expect((await runCliInProcess(['generate'], { cwd: dir, env: {} })).code).toBe(0);
  await mkdir(path.join(dir, '.promptlock'));
  await symlink(victim, path.join(dir, '.promptlock/.gitignore'));
  // Left by a run killed while it fetched (or committed so): generate takes the run lock to discard it.
  await writeFile(path.join(dir, `.promptlock/tx-${DEAD_PID}-1.pending`), '');
  const run = await runBuiltCli(['generate'], { cwd: dir, env: {} });
  expect(await readFile(victim, 'utf8')).toBe('export PATH=$HOME/bin:$PATH\n');
  expect(run.code, run.stderr).toBe(1);
  expect(run.stderr).toContain(`${path.join(dir, '.promptlock/.gitignore')}: it is a symbolic link`);
});
