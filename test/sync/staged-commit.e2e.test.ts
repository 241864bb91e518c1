/**
 * A sync stages each prompt into its pending journal as it is fetched (src/sync/sync.ts): a kill
 * while it fetches leaves the previous files, the next run discards the pending journal and
 * completes; unchanged files are never staged; a first sync killed on either side of its commit
 * point leaves no snapshot or all of them; a dry run stages nothing. Runs that are (or would be, if
 * the behaviour broke) killed by a failpoint are processes of the built CLI; the rest runs in this one.
 */
import { cp, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY, type RunningServer } from '../../src/server/index.js';
import { encodeSnapshot } from '../../src/store/snapshot-format.js';
import { runBuiltCli, runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir, storeTree } from '../helpers/project.js';
import { generatedPrompt, writeServedFolder } from '../helpers/served-folder.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project, defer } = disposables();
const COUNT = 30;
const txFiles = async (dir: string) => (await readdir(path.join(dir, '.promptlock'))).filter((n) => n.startsWith('tx-')).sort();

let folder: string;
let server: RunningServer;
/** A project synced at revision 1 of every prompt. */
let stateA: string;
let treeA: Record<string, string>;

beforeAll(async () => {
  folder = await writeServedFolder(undefined, COUNT, 1);
  defer(() => removeDir(folder));
  server = await serve({ dir: folder });
  stateA = await project({ baseUrl: server.url, concurrency: 2 });
  expect((await runCliInProcess(['sync'], { cwd: stateA, env })).code).toBe(0);
  treeA = await storeTree(stateA);
});

/** A copy of stateA, to change. */
async function copyOfA(): Promise<string> {
  const dir = await project({});
  await cp(stateA, dir, { recursive: true });
  return dir;
}

/** Publishes revision `revision` of prompts `indexes` upstream. */
async function publish(indexes: number[], revision: number): Promise<void> {
  for (const i of indexes) {
    const prompt = generatedPrompt(i, revision);
    await writeFile(path.join(folder, 'bulk', `prompt-${String(i).padStart(4, '0')}.json`), encodeSnapshot(prompt));
  }
  await server.reload();
}

describe('staging as prompts arrive', () => {
  it('only changed files are staged: a refetch of 30 prompts of which 3 changed writes 3 snapshots, the lockfile and the module', async () => {
    const dir = await copyOfA();
    await publish([3, 11, 27], 2);
    try {
      // 5 writes are staged in all (a sixth would kill the run): the 27 unchanged snapshots never reach the journal.
      const run = await runBuiltCli(['sync', '--refetch', '--json'], { cwd: dir, env: { ...env, PROMPTLOCK_FAILPOINT_STAGED: '6' } });
      expect(run.code, run.stderr).toBe(0);
      const summary = JSON.parse(run.stdout) as { fetched: number; written: string[] };
      expect(summary.fetched).toBe(COUNT);
      expect(summary.written).toEqual([
        'prompts.lock.json',
        'prompts/bulk/prompt-0003.json',
        'prompts/bulk/prompt-0011.json',
        'prompts/bulk/prompt-0027.json',
        'src/generated/prompts.ts',
      ]);
      expect(await txFiles(dir)).toEqual([]);
    } finally {
      await publish([3, 11, 27], 1);
    }
  });

  it('a sync killed while it fetches (after 3 staged prompts) leaves the previous files; check is green; the next run discards the pending journal and completes', async () => {
    const dir = await copyOfA();
    await publish(
      Array.from({ length: COUNT }, (_, i) => i),
      2,
    );
    try {
      server.stats.requests = 0;
      const killed = await runBuiltCli(['sync'], { cwd: dir, env: { ...env, PROMPTLOCK_FAILPOINT_STAGED: '3' } });
      expect(killed.signal).toBe('SIGKILL');
      // Killed while fetching: most prompts were not even asked for (2 at a time), and only a pending journal exists.
      expect(server.stats.requests).toBeLessThan(COUNT);
      expect((await txFiles(dir)).map((name) => name.replace(/^tx-[^.]+/, 'tx'))).toEqual(['tx.pending']);
      expect(await storeTree(dir)).toEqual(treeA);
      const check = await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} });
      expect(check.stderr).toContain('lockfile, snapshots and module agree');
      expect(check.code).toBe(0);

      const next = await runCliInProcess(['sync', '--json'], { cwd: dir, env });
      expect(next.code, next.stderr).toBe(0);
      expect((JSON.parse(next.stdout) as { changed: unknown[] }).changed).toHaveLength(COUNT);
      expect(await txFiles(dir)).toEqual([]);
      const clean = await copyOfA();
      expect((await runCliInProcess(['sync'], { cwd: clean, env })).code).toBe(0);
      expect(await storeTree(dir)).toEqual(await storeTree(clean));
    } finally {
      await publish(
        Array.from({ length: COUNT }, (_, i) => i),
        1,
      );
    }
  });

  it('sync --frozen stages what it fetches the same way (killed after its first staged snapshot: the files stand)', async () => {
    const dir = await copyOfA();
    await removeDir(path.join(dir, 'prompts'));
    const killed = await runBuiltCli(['sync', '--frozen'], { cwd: dir, env: { ...env, PROMPTLOCK_FAILPOINT_STAGED: '1' } });
    expect(killed.signal).toBe('SIGKILL');
    expect(Object.keys(await storeTree(dir)).filter((file) => file.startsWith('prompts/'))).toEqual([]);
    const again = await runCliInProcess(['sync', '--frozen'], { cwd: dir, env });
    expect(again.code, again.stderr).toBe(0);
    expect(await storeTree(dir)).toEqual(treeA);
    expect(await txFiles(dir)).toEqual([]);
  });

  it('a first sync killed just before its commit point leaves no snapshot; killed after it, generate leaves it, the next sync finishes it and removes the journal', async () => {
    const dir = await project({ baseUrl: server.url, concurrency: 2 });
    const before = await runBuiltCli(['sync'], { cwd: dir, env: { ...env, PROMPTLOCK_FAILPOINT: 'journal-synced' } });
    expect(before.signal).toBe('SIGKILL');
    expect((await txFiles(dir)).map((name) => name.replace(/^tx-[^.]+/, 'tx'))).toEqual(['tx.pending']);
    expect(Object.keys(await storeTree(dir)).filter((file) => file.startsWith('prompts/'))).toEqual([]);
    const after = await runBuiltCli(['sync'], { cwd: dir, env: { ...env, PROMPTLOCK_FAILPOINT_APPLY: '5' } });
    expect(after.signal).toBe('SIGKILL');
    const generate = await runCliInProcess(['generate'], { cwd: dir, env: {} });
    expect(generate.stderr).toContain('only `promptlock sync` finishes');
    expect((await txFiles(dir)).some((name) => name.endsWith('.journal'))).toBe(true);
    const resume = await runCliInProcess(['sync'], { cwd: dir, env });
    expect(resume.code, resume.stderr).toBe(0);
    expect(await storeTree(dir)).toEqual(treeA);
    expect(await txFiles(dir)).toEqual([]);
  });

  it('diff (a dry run) stages nothing: a failpoint on the first staged write never fires', async () => {
    const dir = await copyOfA();
    await publish([5], 2);
    try {
      const diff = await runBuiltCli(['diff'], { cwd: dir, env: { ...env, PROMPTLOCK_FAILPOINT_STAGED: '1' } });
      expect(diff.signal).toBeNull();
      expect(diff.stdout).toContain('@bulk/prompt-0005');
      expect(await storeTree(dir)).toEqual(treeA);
    } finally {
      await publish([5], 1);
    }
  });
});

describe('while a sync fetches', () => {
  it('generate reads the committed files without waiting for the run lock: the pending journal of a live sync is not an interrupted run', async () => {
    const slow = await serve({ dir: folder, latencyMs: 40 });
    const dir = await project({ baseUrl: slow.url, concurrency: 1 });
    await cp(stateA, dir, { recursive: true, filter: (source) => !source.endsWith('prompts.config.json') });
    await publish([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 2);
    await slow.reload();
    try {
      const syncing = runBuiltCli(['sync', '--refetch'], { cwd: dir, env });
      // Bounded wait for the first staged prompt (its pending journal), then generate alongside (in
      // this process: the sync is another one, holding the run lock).
      let pending = false;
      for (let i = 0; i < 400 && !pending; i++) {
        pending = (await readdir(path.join(dir, '.promptlock')).catch(() => [] as string[])).some((n) => n.endsWith('.pending'));
        if (!pending) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(pending).toBe(true);
      const generate = await runCliInProcess(['generate'], { cwd: dir, env: {} });
      expect(generate.stderr).not.toContain('Another promptlock');
      expect(generate.code, generate.stderr).toBe(0);
      const synced = await syncing;
      expect(synced.code, synced.stderr).toBe(0);
      expect(await txFiles(dir)).toEqual([]);
    } finally {
      await publish([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 1);
      await slow.reload();
    }
  });
});
