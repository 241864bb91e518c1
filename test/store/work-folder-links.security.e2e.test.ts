/**
 * Security regression (issue 30, item 2): `.promptlock/` comes with a checkout like any folder
 * (a file there may be committed with `git add -f`). Its `.gitignore` committed as a link made
 * `promptlock generate` (the `prepare` script of every `npm install`) overwrite the file it points
 * at with `*\n`. Every file promptlock writes goes through one writer that never follows a link:
 * refused, naming the link. `generate` no longer writes in `.promptlock/` at all (it applies no
 * journal: item 4); `sync` does. The lockfile and the module committed as links to another file
 * of the project (a link the path guard lets stay inside the project) are refused by name before a
 * sync's commit point, so nothing is half written (before, a rename replaced the link). Through the
 * built CLI, the real local service.
 */
import { lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { encodeLockfile } from '../../src/store/lockfile-format.js';
import { runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const { serve, project, defer } = disposables();
const BASHRC = 'export PATH=$HOME/bin:$PATH\n';
/** A pid no process can have (above the kernel's largest): what a run killed long ago left. */
const DEAD_PID = 4_194_305;

it.each([['generate'], ['sync']])(
  'a committed .promptlock/.gitignore linked to a file of the user: %s never writes through it, and the file keeps its bytes',
  async (command) => {
    const folder = await writeServedFolder(undefined, 1, 1);
    defer(() => removeDir(folder));
    const server = await serve({ dir: folder });
    const away = await mkdtemp(path.join(tmpdir(), 'promptlock-outside-'));
    defer(() => rm(away, { recursive: true, force: true }));
    const victim = path.join(away, 'bashrc');
    await writeFile(victim, BASHRC);
    const dir = await project({ baseUrl: server.url, prompts: ['@bulk/*'] });
    const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
    await rm(path.join(dir, '.promptlock'), { recursive: true, force: true });
    await mkdir(path.join(dir, '.promptlock'));
    await symlink(victim, path.join(dir, '.promptlock/.gitignore'));
    // Left by a run killed while it fetched (or committed so): before, generate took the run lock to discard it.
    await writeFile(path.join(dir, `.promptlock/tx-${DEAD_PID}-1.pending`), '');
    const run = await runBuiltCli([command], { cwd: dir, env });
    expect(await readFile(victim, 'utf8')).toBe(BASHRC);
    if (command === 'generate') return expect(run.code, run.stderr).toBe(0);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`.promptlock/.gitignore: it is a symbolic link`);
  },
);

it.each([['prompts.lock.json'], ['src/generated/prompts.ts']])(
  '%s committed as a link to another file of the project: sync never writes through it, and says which link to replace',
  async (file) => {
    const folder = await writeServedFolder(undefined, 1, 1);
    defer(() => removeDir(folder));
    const server = await serve({ dir: folder });
    const dir = await project({ baseUrl: server.url, prompts: ['@bulk/*'] });
    // A file of the project a sync must never write, valid as either (an empty lockfile is JSON, and TypeScript).
    const shared = encodeLockfile({ lockfileVersion: 1, prompts: {} });
    await mkdir(path.join(dir, 'src/generated'), { recursive: true });
    await writeFile(path.join(dir, 'src/shared.json'), shared);
    await symlink(path.join(dir, 'src/shared.json'), path.join(dir, file));
    const run = await runBuiltCli(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY } });
    expect(await readFile(path.join(dir, 'src/shared.json'), 'utf8')).toBe(shared);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Refusing to write ${file}: it is a symbolic link, and promptlock never writes through one.`);
    // Refused before the commit point: nothing of the run is half written.
    expect(run.stderr).not.toContain('Could not apply');
    expect((await lstat(path.join(dir, file))).isSymbolicLink()).toBe(true);
  },
);
