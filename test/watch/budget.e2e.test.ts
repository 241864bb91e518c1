/**
 * The polling budget, measured at the real local service: the library's `watch` in-process over 100
 * floating prompts that are already locked, counting the requests the server saw. No timings are
 * asserted: each case waits for a number of polls, then compares requests with what the budget
 * allows for that many polls and for one minute.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { loadConfig } from '../../src/config/index.js';
import type { ResolvedConfig } from '../../src/config/types.js';
import { watch } from '../../src/library.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { sync } from '../../src/sync/sync.js';
import type { SyncClient } from '../../src/sync/types.js';
import { pollBudget } from '../../src/util/poll-budget.js';
import type { WatchHandle } from '../../src/watch/watch.js';
import { makeProject, removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';
import { waitUntil } from '../helpers/wait-until.js';

const KEY = `sk_live_${'WatchBudgetKey'.padEnd(38, 'b')}wxyz`;
const PROMPTS = 100;

const servers: RunningServer[] = [];
const dirs: string[] = [];
const handles: WatchHandle[] = [];

afterAll(async () => {
  await Promise.all(handles.map((h) => h.close()));
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(dirs.map(removeDir));
});

/** The real client, recording which prompts were asked for (observing, not replacing, it). */
async function recordingClient(config: ResolvedConfig, asked: string[]): Promise<SyncClient> {
  const client = await createClient({ baseUrl: config.baseUrl, apiKey: config.apiKey, concurrency: config.concurrency });
  return {
    listAll: () => client.listAll(),
    getPrompt: (name, variables) => {
      asked.push(name);
      return client.getPrompt(name, variables);
    },
    getContextDownloadUrl: (id) => client.getContextDownloadUrl(id),
    downloadFileTo: (url, options, sink) => client.downloadFileTo(url, options, sink),
    get stats() {
      return client.stats;
    },
    concurrency: client.concurrency,
    close: () => client.close(),
  };
}

/** A served workspace of 100 prompts and a project that has locked them all at latest. */
async function lockedWorkspace() {
  const served = await writeServedFolder(undefined, PROMPTS, 1);
  dirs.push(served);
  const server = await startServer({ dir: served, port: 0, keys: [{ key: KEY }] });
  servers.push(server);
  const dir = await makeProject({ baseUrl: server.url, prompts: ['@bulk/*'] });
  dirs.push(dir);
  const project = { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } };
  const config = await loadConfig(project);
  const presync = await sync({ config, connect: () => recordingClient(config, []) });
  expect(presync.prompts).toBe(PROMPTS);
  server.resetStats();
  return { server, project, config };
}

async function watchFor(polls: number, intervalSeconds: number, limitPerMinute: number) {
  const { server, project, config } = await lockedWorkspace();
  const asked: string[] = [];
  const handle = await watch(
    project,
    {
      log: { info: () => {}, success: () => {}, warn: (message) => expect.fail(`watch warned: ${message}`) },
      intervalSeconds,
      limitPerMinute,
    },
    { connect: () => recordingClient(config, asked) },
  );
  handles.push(handle);
  await handle.ready;
  await waitUntil(`${polls} polls`, () => handle.stats.polls >= polls, 40_000);
  await handle.close();
  return { server, handle, asked, budget: pollBudget({ intervalSeconds, limitPerMinute }) };
}

describe.concurrent('watch polling budget (100 floating prompts)', () => {
  it('--rate-limit 300, every half second: no more requests than the polls were allowed (1 each, 60 a minute)', async () => {
    const { server, handle, budget } = await watchFor(5, 0.5, 300);
    expect(budget).toEqual({ perMinute: 60, perPoll: 1 });
    expect(server.stats.requests).toBe(handle.stats.requests);
    expect(server.stats.requests).toBeGreaterThan(0);
    expect(server.stats.requests).toBeLessThanOrEqual(handle.stats.polls * budget.perPoll);
    expect(server.stats.byStatus['429'] ?? 0).toBe(0);
  });

  it('polls faster than the minute allows: the sliding window stops them at the per-minute budget', async () => {
    // 0.1 s polls at 1 request each would be 600 a minute; the budget is 20: 30 polls would send 30.
    const { server, handle, budget } = await watchFor(30, 0.1, 100);
    expect(budget).toEqual({ perMinute: 20, perPoll: 1 });
    expect(server.stats.requests).toBe(handle.stats.requests);
    expect(server.stats.requests).toBeLessThanOrEqual(budget.perMinute);
    expect(server.stats.requests).toBeGreaterThanOrEqual(budget.perMinute - 5);
  });

  it('round robin: every prompt is checked once before any is checked again', async () => {
    // 10 requests a poll: the listing, then the prompts in turn.
    const { server, handle, asked, budget } = await watchFor(14, 0.1, 30_000);
    expect(budget.perPoll).toBe(10);
    expect(server.stats.requests).toBeLessThanOrEqual(handle.stats.polls * budget.perPoll);
    expect(asked.length).toBeGreaterThanOrEqual(PROMPTS + 10);
    const firstLap = asked.slice(0, PROMPTS);
    expect(new Set(firstLap).size).toBe(PROMPTS);
    expect(asked.slice(PROMPTS, PROMPTS + 10)).toEqual([...firstLap].sort().slice(0, 10));
  });
});
