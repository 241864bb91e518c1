/**
 * Finding 5: several runs racing for a stale run lock. Real files, real concurrent acquisitions
 * (their file operations interleave in the thread pool): exactly one holder per round, 30 rounds;
 * a run releases only a lock it owns.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireRunLock, type RunLock } from '../../src/store/run-lock.js';

let root: string;
let deadPid: number;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'promptlock-race-'));
  // The pid of a process that has exited: what a killed sync leaves in its lock.
  deadPid = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
    .stdout as unknown as number;
  deadPid = Number(deadPid);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const lockFile = () => path.join(root, '.promptlock/run.lock');
const staleLock = () => JSON.stringify({ pid: deadPid, host: hostname(), command: 'sync', startedAt: '2020-01-01T00:00:00.000Z' });

describe('stale run lock, many runs at once', () => {
  it("30 rounds of 6 concurrent takeovers: never two holders, and the lock on disk is the holder's", async () => {
    let rounds = 0;
    const holdersPerRound: number[] = [];
    const otherFailures: string[] = [];
    for (let round = 0; round < 30; round++) {
      await mkdir(path.join(root, '.promptlock'), { recursive: true });
      // Alternate a readable stale lock and a damaged one (unreadable bytes from a crash).
      await writeFile(lockFile(), round % 2 === 0 ? staleLock() : '{"pid": 12');
      const results = await Promise.allSettled(Array.from({ length: 6 }, () => acquireRunLock(root, 'sync')));
      const held = results.filter((r): r is PromiseFulfilledResult<RunLock> => r.status === 'fulfilled');
      holdersPerRound.push(held.length);
      for (const r of results) {
        const message = r.status === 'rejected' ? String(r.reason.message) : '';
        if (r.status === 'rejected' && !message.startsWith(`Another promptlock sync is running in this project (pid ${process.pid}`))
          otherFailures.push(message);
      }
      const onDisk = await readFile(lockFile(), 'utf8').catch(() => '');
      if (held.length === 1) expect(JSON.parse(onDisk).pid).toBe(process.pid);
      for (const lock of held) await lock.value.release();
      // Nothing left behind: no lock, no private temp files, no takeover guard.
      if (held.length === 1) expect(await readdir(path.join(root, '.promptlock'))).toEqual(['.gitignore']);
      await rm(path.join(root, '.promptlock'), { recursive: true, force: true });
      rounds++;
    }
    expect(rounds).toBe(30);
    expect(
      holdersPerRound.filter((n) => n > 1),
      'rounds with two holders at once',
    ).toEqual([]);
    expect(holdersPerRound).toEqual(Array.from({ length: 30 }, () => 1));
    expect(otherFailures).toEqual([]);
  }, 60_000);

  it('release removes only a lock this run still owns', async () => {
    const first = await acquireRunLock(root, 'sync');
    // Someone judged it stale and took it over (a lock file with another token now).
    const other = JSON.stringify({ pid: process.pid, host: hostname(), command: 'watch', startedAt: 'x', token: 'someone-else' });
    await writeFile(lockFile(), other);
    await first.release();
    expect(await readFile(lockFile(), 'utf8')).toBe(other);
    await rm(lockFile());
  });

  it('a live holder is never taken over', async () => {
    const held = await acquireRunLock(root, 'sync');
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => acquireRunLock(root, 'generate')));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    await held.release();
    await (await acquireRunLock(root, 'generate')).release();
  });
});
