/**
 * Finding 4 (recovery side): a committed journal naming paths that are not promptlock's own (the
 * journal a context id ".." produced, or a hand-made one reaching out of the project) is refused
 * whole, naming them, and never writes outside the project; once removed, every command recovers.
 * A real failure after the commit point (a folder made immutable) is completed by the next run
 * once the disk is fixed. Finding 15: `check` right after a kill at the commit point fails naming
 * the journal, and reports no snapshot the journal prunes as an orphan. Only the killed runs are
 * processes (the built CLI); every other command runs in this one.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY, type RunningServer } from '../../src/server/index.js';
import { runBuiltCli, runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { writeJournalFile } from '../helpers/journal.js';
import { removeDir, storeTree } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project, defer } = disposables();
const txFiles = async (dir: string) => (await readdir(path.join(dir, '.promptlock'))).filter((n) => n.startsWith('tx-'));

let folder: string;
let server: RunningServer;
/** A project of every prompt, synced once: the kill tests each change a copy. */
let syncedAll: string;
beforeAll(async () => {
  folder = await writeServedFolder(undefined, 10, 1);
  defer(() => removeDir(folder));
  server = await serve({ dir: folder });
  syncedAll = await project({ baseUrl: server.url, prompts: ['@bulk/*'] });
  expect((await runCliInProcess(['sync'], { cwd: syncedAll, env })).code).toBe(0);
});

describe('a journal that cannot be applied never wedges the project', () => {
  it('the journal of a ".." context id, plus ops reaching out of the project: refused whole, naming them; removed, every command recovers; nothing escapes', async () => {
    const dir = await project({ baseUrl: server.url, prompts: ['@bulk/prompt-0000'] });
    expect((await runCliInProcess(['sync'], { cwd: dir, env })).code).toBe(0);
    const before = await storeTree(dir);
    const away = await mkdtemp(path.join(tmpdir(), 'promptlock-outside-'));
    defer(() => rm(away, { recursive: true, force: true }));
    await writeFile(path.join(away, 'canary.txt'), 'canary');
    // What a run with a context item id ".." committed: `bulk/prompt-0000.files/..` joined to the
    // workspace folder itself. Then ops a hand-made journal could add.
    const ops = [
      { kind: 'write' as const, target: 'prompts/bulk' },
      { kind: 'write' as const, target: path.join(away, 'canary.txt') },
      { kind: 'write' as const, target: 'prompts/bulk/../../../canary' },
      { kind: 'delete' as const, target: path.join(away, 'canary.txt') },
      { kind: 'delete' as const, target: away },
    ];
    const contents = ['file content', 'escaped', 'escaped', undefined, undefined];
    const journal = await writeJournalFile(dir, ops, contents);
    // generate applies no journal at all (only sync does): it leaves everything, the canary too.
    expect((await runCliInProcess(['generate'], { cwd: dir, env: {} })).code).toBe(0);
    expect(await readFile(path.join(away, 'canary.txt'), 'utf8')).toBe('canary');
    expect(await storeTree(dir)).toEqual(before);
    const run = await runCliInProcess(['sync'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Refusing to apply .promptlock/tx-1-1.journal: it would touch 5 paths');
    expect(run.stderr).toContain(JSON.stringify(path.join(away, 'canary.txt')));
    expect(await readFile(path.join(away, 'canary.txt'), 'utf8')).toBe('canary');
    expect(await storeTree(dir)).toEqual(before);
    await rm(journal);
    expect((await runCliInProcess(['sync'], { cwd: dir, env })).code).toBe(0);
    expect(await txFiles(dir)).toEqual([]);
    expect(await storeTree(dir)).toEqual(before);
    expect((await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} })).code).toBe(0);
  });

  const chattr = spawnSync('chattr', ['-V'], { stdio: 'ignore' }).status === 0 || spawnSync('which', ['chattr']).status === 0;
  it.skipIf(!chattr || process.getuid?.() !== 0)(
    'a real failure after the commit point (an immutable folder, EPERM): named by path and cause; check reads the real files; the next sync completes it',
    async () => {
      const served = await writeServedFolder(undefined, 5, 1);
      defer(() => removeDir(served));
      const upstream = await serve({ dir: served });
      const dir = await project({ baseUrl: upstream.url });
      expect((await runCliInProcess(['sync'], { cwd: dir, env })).code).toBe(0);
      await writeServedFolder(served, 5, 2);
      await upstream.reload();
      const locked = path.join(dir, 'prompts/bulk');
      try {
        execFileSync('chattr', ['+i', locked]);
      } catch {
        return; // this file system has no immutable flag
      }
      try {
        const failed = await runCliInProcess(['sync'], { cwd: dir, env });
        expect(failed.code).toBe(1);
        expect(failed.stderr).toMatch(
          /Cannot write prompts\/bulk\/prompt-000\d\.json: operation not permitted by permissions or an immutable flag \(EPERM\)/,
        );
        expect(failed.stderr).not.toContain('unexpected failure');
        const check = await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} });
        expect(check.code).toBe(1);
        expect(check.stderr).toContain('an earlier sync failed while writing its changes');
      } finally {
        execFileSync('chattr', ['-i', locked]);
      }
      const resume = await runCliInProcess(['sync'], { cwd: dir, env });
      expect(resume.code, resume.stderr).toBe(0);
      expect(await txFiles(dir)).toEqual([]);
      expect(JSON.parse(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8')).prompts['@bulk/prompt-0004'].version).toBe('v2');
      expect((await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} })).code).toBe(0);
    },
  );
});

describe('check after a kill at the commit point', () => {
  it.each([1, 4, 7])(
    'fails naming the journal, and reports no snapshot the journal prunes (killed after %i of its operations)',
    async (failpoint) => {
      const dir = await project({});
      await cp(syncedAll, dir, { recursive: true });
      expect((await readdir(path.join(dir, 'prompts/bulk'))).length).toBe(10);
      await writeFile(
        path.join(dir, 'prompts.config.json'),
        JSON.stringify({ baseUrl: server.url, prompts: ['@bulk/prompt-0000', '@bulk/prompt-0001', '@bulk/prompt-0002'] }),
      );
      // 7 prunes, then the lockfile and the module.
      const killed = await runBuiltCli(['sync'], { cwd: dir, env: { ...env, PROMPTLOCK_FAILPOINT_APPLY: String(failpoint) } });
      expect(killed.signal).toBe('SIGKILL');
      const left = (await readdir(path.join(dir, 'prompts/bulk'))).length;
      expect(left).toBe(10 - failpoint);
      const check = await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} });
      expect(check.stderr).not.toContain('which the lockfile does not have');
      expect(check.stderr).toContain('an interrupted sync left committed writes in .promptlock/tx-');
      expect(check.code).toBe(1);
      expect((await runCliInProcess(['sync'], { cwd: dir, env })).code).toBe(0);
      expect((await readdir(path.join(dir, 'prompts/bulk'))).sort()).toEqual(['prompt-0000.json', 'prompt-0001.json', 'prompt-0002.json']);
      expect((await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} })).code).toBe(0);
    },
  );
});
