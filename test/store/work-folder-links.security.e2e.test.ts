/**
 * Security regression (issue 30, item 2): `.promptlock/` comes with a checkout like any folder
 * (a file there may be committed with `git add -f`). Its `.gitignore` committed as a link made
 * `promptlock generate` (the `prepare` script of every `npm install`) overwrite the file it points
 * at with `*\n`. Every file promptlock writes goes through one writer that never follows a link:
 * refused, naming the link. `generate` no longer writes in `.promptlock/` at all (it applies no
 * journal: item 4); `sync` does, so it is the one run here. Through the built CLI, the real local
 * service.
 */
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const { serve, project, defer } = disposables();
const BASHRC = 'export PATH=$HOME/bin:$PATH\n';

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
    const run = await runBuiltCli([command], { cwd: dir, env });
    expect(await readFile(victim, 'utf8')).toBe(BASHRC);
    if (command === 'generate') return expect(run.code, run.stderr).toBe(0);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`${path.join(dir, '.promptlock/.gitignore')}: it is a symbolic link`);
  },
);
