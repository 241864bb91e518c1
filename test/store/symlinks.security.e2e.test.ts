/**
 * Finding 2: a symbolic link inside the snapshots folder must never make sync write, or prune
 * delete, outside the project; nor may a link at or above the module make `generate` write outside it. Real links, the built CLI, the real local service; a
 * folder outside the project holds a canary that must survive every run.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY, type RunningServer } from '../../src/server/index.js';
import { commitChanges } from '../../src/store/journal.js';
import { encodeSnapshot } from '../../src/store/snapshot-format.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { storeFilesIn } from '../helpers/journal.js';
import { generatedPrompt } from '../helpers/served-folder.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project, defer } = disposables();
const CANARY = 'canary: outside the project, never to be touched\n';

let server: RunningServer;
beforeAll(async () => {
  server = await serve({ dir: path.resolve('examples/workspace') });
});

/** A folder outside the project with one canary file; removed after the file. */
async function outside(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-outside-'));
  defer(() => rm(dir, { recursive: true, force: true }));
  await writeFile(path.join(dir, name), CANARY);
  return dir;
}

async function expectUntouched(dir: string, name: string): Promise<void> {
  expect(await readdir(dir)).toEqual([name]);
  expect(await readFile(path.join(dir, name), 'utf8')).toBe(CANARY);
}

const config = (prompts: string[]) => ({ baseUrl: server.url, prompts, contextFiles: true });

describe('sync never writes through a link out of the store', () => {
  it('a symlinked <pkg>.files folder: refused, naming the link; the file outside keeps its bytes', async () => {
    const away = await outside('refund-policy.md');
    const dir = await project(config(['@acme/support-reply']));
    await mkdir(path.join(dir, 'prompts/acme'), { recursive: true });
    await symlink(away, path.join(dir, 'prompts/acme/support-reply.files'));
    const run = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('prompts/acme/support-reply.files is a symbolic link');
    expect(run.stderr).not.toContain('unexpected failure');
    await expectUntouched(away, 'refund-policy.md');
    expect(await readdir(path.join(dir, '.promptlock'))).not.toContainEqual(expect.stringMatching(/^tx-/));
  });

  it('a symlinked workspace folder inside the snapshots folder: refused; nothing written outside', async () => {
    const away = await outside('welcome.json');
    const dir = await project(config(['@acme/welcome']));
    await mkdir(path.join(dir, 'prompts'), { recursive: true });
    await symlink(away, path.join(dir, 'prompts/acme'));
    const run = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('prompts/acme is a symbolic link');
    await expectUntouched(away, 'welcome.json');
  });

  it('a symlinked snapshot file: refused; the file it points at keeps its bytes', async () => {
    const away = await outside('target.json');
    const dir = await project(config(['@acme/welcome']));
    await mkdir(path.join(dir, 'prompts/acme'), { recursive: true });
    await symlink(path.join(away, 'target.json'), path.join(dir, 'prompts/acme/welcome.json'));
    const run = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('prompts/acme/welcome.json is a symbolic link');
    await expectUntouched(away, 'target.json');
  });
});

describe('prune never deletes through a link', () => {
  it('a pruned prompt whose .files folder became a link out: refused, the canary with the locked name survives', async () => {
    const dir = await project(config(['@acme/welcome', '@acme/support-reply']));
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
    // The pruned package's files folder is replaced by a link to a folder holding a file of the locked name.
    const away = await outside('refund-policy.md');
    await rm(path.join(dir, 'prompts/acme/support-reply.files'), { recursive: true });
    await symlink(away, path.join(dir, 'prompts/acme/support-reply.files'));
    await writeFile(path.join(dir, 'prompts.config.json'), JSON.stringify(config(['@acme/welcome'])));
    const run = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Refusing to remove .*refund-policy\.md: .*support-reply\.files is a symbolic link/);
    await expectUntouched(away, 'refund-policy.md');
  });

  it("an orphan-looking snapshot behind a symlinked workspace folder is not promptlock's: never deleted", async () => {
    const away = await mkdtemp(path.join(tmpdir(), 'promptlock-outside-'));
    defer(() => rm(away, { recursive: true, force: true }));
    const orphan = encodeSnapshot(generatedPrompt(1, 1, 'other'));
    await writeFile(path.join(away, 'prompt-0001.json'), orphan);
    const dir = await project(config(['@acme/welcome']));
    await mkdir(path.join(dir, 'prompts'), { recursive: true });
    await symlink(away, path.join(dir, 'prompts/other'));
    const run = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(run.code).toBe(0);
    expect(await readFile(path.join(away, 'prompt-0001.json'), 'utf8')).toBe(orphan);
    const check = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(check.stderr).not.toContain('prompt-0001');
  });

  it('.promptlock itself as a link out: refused before any journal or lock is written there', async () => {
    const away = await outside('keep.txt');
    const dir = await project(config(['@acme/welcome']));
    await symlink(away, path.join(dir, '.promptlock'));
    const run = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is a symbolic link');
    await expectUntouched(away, 'keep.txt');
  });
});

describe('the snapshots folder itself as a link', () => {
  it('is followed only when it stays inside the project', async () => {
    const dir = await project({});
    await mkdir(path.join(dir, 'data'));
    await symlink(path.join(dir, 'data'), path.join(dir, 'prompts'));
    const file = path.join(dir, 'prompts/acme/welcome.json');
    await commitChanges(storeFilesIn(dir), [{ kind: 'write', path: file, content: '{}' }]);
    expect(await readFile(path.join(dir, 'data/acme/welcome.json'), 'utf8')).toBe('{}');

    const away = await outside('keep.txt');
    const other = await project({});
    await symlink(away, path.join(other, 'prompts'));
    const write = commitChanges(storeFilesIn(other), [
      { kind: 'write', path: path.join(other, 'prompts/acme/welcome.json'), content: '{}' },
    ]);
    await expect(write).rejects.toThrow(`${path.join(other, 'prompts')} is a symbolic link to ${away}, leading out of the project`);
    await expectUntouched(away, 'keep.txt');
  });
});

describe('generate never writes the module through a link out of the project', () => {
  const synced = async () => {
    const dir = await project(config(['@acme/welcome']));
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
    await rm(path.join(dir, 'src/generated'), { recursive: true });
    return dir;
  };

  it('src/generated as a link to a folder outside: refused, naming the link; the canary keeps its bytes', async () => {
    const away = await outside('prompts.ts');
    const dir = await synced();
    await symlink(away, path.join(dir, 'src/generated'));
    for (const args of [['generate'], ['generate', '--force']]) {
      const run = await runBuiltCli(args, { cwd: dir, env: {} });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `Refusing to write src/generated/prompts.ts: src/generated is a symbolic link to ${away}, leading out of the project.`,
      );
      expect(run.stderr).toContain('Replace the link with a real folder or file');
      expect(run.stderr).not.toContain('unexpected failure');
      await expectUntouched(away, 'prompts.ts');
    }
  });

  it('the module file itself as a link to a file outside: refused; the file it points at keeps its bytes', async () => {
    const away = await outside('prompts.ts');
    const dir = await synced();
    await mkdir(path.join(dir, 'src/generated'));
    await symlink(path.join(away, 'prompts.ts'), path.join(dir, 'src/generated/prompts.ts'));
    const run = await runBuiltCli(['generate'], { cwd: dir, env: {} });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('src/generated/prompts.ts is a symbolic link');
    await expectUntouched(away, 'prompts.ts');
  });

  it('a link that stays inside the project is followed', async () => {
    const dir = await synced();
    await mkdir(path.join(dir, 'build/generated'), { recursive: true });
    await symlink(path.join(dir, 'build/generated'), path.join(dir, 'src/generated'));
    const run = await runBuiltCli(['generate'], { cwd: dir, env: {} });
    expect(run.code, run.stderr).toBe(0);
    expect(await readFile(path.join(dir, 'build/generated/prompts.ts'), 'utf8')).toContain('"@acme/welcome": welcome,');
  });
});
