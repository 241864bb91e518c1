/**
 * Reliability of the CLI against the real local service: faults, kills at any moment, and a
 * rate-limited service. Only the runs that are killed are processes of the built CLI; every other
 * run is the CLI in this process.
 */
import { cp, readdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientOptionsFor, createClient } from '../../src/api/index.js';
import { callSync, loadProject } from '../../src/library.js';
import { LOCAL_TEST_KEY, type RunningServer } from '../../src/server/index.js';
import { runBuiltCli, runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir, storeTree } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project: makeTestProject, defer } = disposables();
const project = (baseUrl: string) => makeTestProject({ baseUrl, concurrency: 8 });

describe('faults', () => {
  it('with 20% of requests failing (503, reset, truncated body) the files equal a clean run', async () => {
    const folder = await writeServedFolder(undefined, 60, 1);
    defer(() => removeDir(folder));
    const clean = await serve({ dir: folder });
    const faulty = await serve({ dir: folder, faults: { rate: 0.2, seed: 7 } });
    const a = await project(clean.url);
    const b = await project(faulty.url);
    expect((await runCliInProcess(['sync'], { cwd: a, env })).code).toBe(0);
    // The library's sync, its client backing off 5 ms instead of 250: this is about the files, not the wait.
    const config = await loadProject({ cwd: b, env });
    const connect = async () => createClient({ ...clientOptionsFor(config), backoffBaseMs: 5 });
    const result = await callSync({ cwd: b, env }, { config, connect });
    expect(result.prompts).toBe(60);
    expect(result.added).toHaveLength(60);
    expect(result.retries).toBeGreaterThan(0);
    // Faults really happened, and were retried.
    const failed = Object.entries(faulty.stats.byStatus)
      .filter(([status]) => status !== '200')
      .reduce((n, [, count]) => n + count, 0);
    expect(failed).toBeGreaterThan(0);
    expect(faulty.stats.requests).toBeGreaterThan(clean.stats.requests);
    expect(await storeTree(b)).toEqual(await storeTree(a));
  });
});

describe('rate limits', () => {
  it('syncs more prompts than one window allows with zero 429s', async () => {
    const folder = await writeServedFolder(undefined, 50, 1);
    defer(() => removeDir(folder));
    // A one-second "minute": the sync must wait for a second window, not how long it waits.
    const limited = await serve({ dir: folder, rateLimits: { authenticated: { perMinute: 30 }, minuteMs: 1000 } });
    const dir = await project(limited.url);
    const run = await runCliInProcess(['sync'], { cwd: dir, env });
    expect(run.stderr).toContain('Synced 50 prompts');
    expect(run.code).toBe(0);
    expect(limited.stats.requests).toBeGreaterThan(30);
    expect(limited.stats.byStatus['429'] ?? 0).toBe(0);
  });
});

describe('kill -9 at any moment', () => {
  const COUNT = 40;
  let folder: string;
  let server: RunningServer;
  let stateA: string;
  let stateB: Record<string, string>;
  let duration: number;

  beforeAll(async () => {
    folder = await writeServedFolder(undefined, COUNT, 1);
    defer(() => removeDir(folder));
    // Limits far above what 12 kills and their resumes send within a minute: this is not about pacing.
    server = await serve({ dir: folder, latencyMs: 2, rateLimits: { authenticated: { perMinute: 100_000, perHour: 1_000_000 } } });
    stateA = await project(server.url);
    expect((await runCliInProcess(['sync'], { cwd: stateA, env })).code).toBe(0);
    // Upstream, every prompt gets a new version: the next sync rewrites every file.
    await writeServedFolder(folder, COUNT, 2);
    await server.reload();
    const probe = await project(server.url);
    await cp(stateA, probe, { recursive: true });
    const started = performance.now();
    expect((await runBuiltCli(['sync'], { cwd: probe, env })).code).toBe(0);
    duration = performance.now() - started;
    stateB = await storeTree(probe);
  });

  it('leaves check green (or naming the committed journal) after a SIGKILL at 12 moments of a sync, and the next sync completes', async () => {
    const outcomes = { old: 0, new: 0, mixed: 0 };
    const before = await storeTree(stateA);
    // 2 kills at moments spread over the whole run (a third and two thirds in: the failpoints
    // below pin every distinct moment), 5 inside the commit itself: after N of its file operations
    // (the journal has one per changed file, plus lockfile and module: none, the first, half, all
    // but the last two, all). Then the moments before the commit point (while
    // fetching, after N prompts were staged into the pending journal; journal written but not
    // fsynced; fsynced but not yet renamed), and one kill in the replay of a killed commit. Only
    // the killed runs are processes; what follows each runs in this one.
    type Kill = { afterMs: number } | { failpoint: number; replayFailpoint?: number } | { point: string; staged?: number };
    const kills: Kill[] = [
      ...[1, 2].map((i) => ({ afterMs: Math.round((i / 3) * duration) })),
      ...[0, 1, COUNT / 2, COUNT, COUNT + 2].map((failpoint) => ({ failpoint })),
      { point: 'staged', staged: 1 },
      { point: 'staged', staged: COUNT / 2 },
      { point: 'journal-written' },
      { point: 'journal-synced' },
      { failpoint: 10, replayFailpoint: 25 },
    ];
    const killAndResume = async (i: number, kill: Kill) => {
      const dir = await project(server.url);
      await cp(stateA, dir, { recursive: true });
      const killed = await runBuiltCli(['sync'], {
        cwd: dir,
        env: {
          ...env,
          PROMPTLOCK_FAILPOINT_APPLY: 'failpoint' in kill ? String(kill.failpoint) : undefined,
          PROMPTLOCK_FAILPOINT: 'point' in kill ? kill.point : undefined,
          PROMPTLOCK_FAILPOINT_STAGED: 'staged' in kill ? String(kill.staged) : undefined,
        },
        ...('afterMs' in kill ? { killAfterMs: kill.afterMs } : {}),
      });
      if (!('afterMs' in kill)) expect(killed.signal).toBe('SIGKILL');
      const tree = await storeTree(dir);
      const same = (want: Record<string, string>) => JSON.stringify(tree) === JSON.stringify(want);
      if (same(before)) outcomes.old++;
      else if (same(stateB)) outcomes.new++;
      else outcomes.mixed++;
      if ('point' in kill) expect(tree, `killed before the commit point (${kill.point}): the previous files stand`).toEqual(before);

      // Killed after the commit point: check fails, naming the journal, and never reads through it
      // (a journal is checked before it is applied, by sync). Before it: green.
      const check = await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} });
      const committed = (await readdir(path.join(dir, '.promptlock'))).some((name) => name.endsWith('.journal'));
      if (committed) {
        expect(check.stderr, `check after kill #${i} (${JSON.stringify(kill)})`).toContain('an interrupted sync left committed writes');
        expect(check.code).toBe(1);
      } else {
        expect(check.stderr, `check after kill #${i} (${JSON.stringify(kill)})`).toContain('agree');
        expect(check.code).toBe(0);
      }
      if ('failpoint' in kill && kill.replayFailpoint !== undefined) {
        // The replay itself killed half-way: still pending, and replayed again from the start.
        const replay = await runBuiltCli(['sync'], { cwd: dir, env: { ...env, PROMPTLOCK_FAILPOINT_APPLY: String(kill.replayFailpoint) } });
        expect(replay.signal).toBe('SIGKILL');
        const again = await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} });
        expect(again.stderr).toContain('an interrupted sync left committed writes');
      }
      if ('failpoint' in kill) {
        // Killed after the commit point: an offline `generate` (a build's prepare) applies nothing
        // of the journal (only sync does: docs/security.md), and says so; the journal stays for sync.
        const generate = await runCliInProcess(['generate'], { cwd: dir, env: {} });
        expect(generate.stderr).toContain('only `promptlock sync` finishes');
        expect((await readdir(path.join(dir, '.promptlock'))).some((name) => name.endsWith('.journal'))).toBe(true);
      }
      if ('point' in kill) {
        // Killed before it: nothing changes; generate builds the same module from the same files.
        const generate = await runCliInProcess(['generate'], { cwd: dir, env: {} });
        expect(generate.code).toBe(0);
        expect(await storeTree(dir)).toEqual(before);
      }
      const resume = await runCliInProcess(['sync'], { cwd: dir, env });
      expect(resume.code).toBe(0);
      const after = await storeTree(dir);
      const differing = Object.keys({ ...after, ...stateB }).filter((file) => after[file] !== stateB[file]);
      expect(differing, `files differing from a clean sync after kill #${i} and resume`).toEqual([]);
    };
    // Two kills at a time (two cores), each in a project of its own; every one is still asserted.
    const queue = [...kills.entries()];
    await Promise.all(
      [0, 1].map(async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await killAndResume(...next);
      }),
    );
    console.log(`kill outcomes over ${kills.length} runs (sync took ${Math.round(duration)} ms):`, outcomes);
    // Kills landed before the commit point and inside the commit (files half replaced on disk).
    expect(outcomes.old).toBeGreaterThan(0);
    expect(outcomes.mixed).toBeGreaterThan(0);
  }, 300_000);
});
