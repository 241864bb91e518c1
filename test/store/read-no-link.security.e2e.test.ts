/**
 * Issue 19, item 21: reads of the snapshots folder never follow a symbolic link (check, generate,
 * sync). A snapshot linked to a file outside the project, even a valid snapshot, is an error
 * naming the link, and no byte of what it points at is printed or built into the module. The
 * built CLI, the real local service, real links.
 */
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY, type RunningServer } from '../../src/server/index.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project, defer } = disposables();
const SECRET = 'SECRET-BYTES-outside-the-project';

let server: RunningServer;
beforeAll(async () => {
  const folder = await writeServedFolder(undefined, 2, 1);
  defer(() => removeDir(folder));
  server = await serve({ dir: folder });
});

async function outsideDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-outside-'));
  defer(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function synced(): Promise<string> {
  const dir = await project({ baseUrl: server.url, prompts: ['@bulk/*'] });
  expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
  return dir;
}

const snapshot = (dir: string) => path.join(dir, 'prompts/bulk/prompt-0000.json');

describe('a linked snapshot is never read', () => {
  it('linked to a file outside the project: check, generate and sync fail naming the link, and print none of its bytes', async () => {
    const dir = await synced();
    const away = await outsideDir();
    await writeFile(path.join(away, 'secret.txt'), `${SECRET}\n`);
    await rm(snapshot(dir));
    await symlink(path.join(away, 'secret.txt'), snapshot(dir));
    // `generate --force`: an up-to-date generate reads the lockfile only, no snapshot at all.
    for (const command of [['check', '--no-typecheck'], ['generate', '--force'], ['sync']]) {
      const run = await runBuiltCli(command, { cwd: dir, env });
      expect(run.code, command.join(' ')).toBe(1);
      expect(run.stderr).toContain('prompt-0000.json');
      expect(run.stderr).toContain('symbolic link');
      expect(run.stdout + run.stderr).not.toContain(SECRET);
    }
    expect(await readFile(path.join(away, 'secret.txt'), 'utf8')).toBe(`${SECRET}\n`);
  });

  it('linked to a valid copy of itself outside the project: check and generate refuse it', async () => {
    const dir = await synced();
    const away = await outsideDir();
    await cp(snapshot(dir), path.join(away, 'copy.json'));
    await rm(snapshot(dir));
    await symlink(path.join(away, 'copy.json'), snapshot(dir));
    const check = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(check.code).toBe(1);
    expect(check.stderr).toContain(`Refusing to read prompts/bulk/prompt-0000.json: it is a symbolic link`);
    const generate = await runBuiltCli(['generate', '--force'], { cwd: dir, env: {} });
    expect(generate.code).toBe(1);
    expect(generate.stderr).toContain('symbolic link');
  });

  it('a workspace folder linked out of the project: check and generate refuse it, naming the folder', async () => {
    const dir = await synced();
    const away = await outsideDir();
    await cp(path.join(dir, 'prompts/bulk'), path.join(away, 'bulk'), { recursive: true });
    await rm(path.join(dir, 'prompts/bulk'), { recursive: true });
    await symlink(path.join(away, 'bulk'), path.join(dir, 'prompts/bulk'));
    const check = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('Refusing to read prompts/bulk: it is a symbolic link');
    const generate = await runBuiltCli(['generate', '--force'], { cwd: dir, env: {} });
    expect(generate.code).toBe(1);
    expect(generate.stderr).toContain('symbolic link');
  });
});
