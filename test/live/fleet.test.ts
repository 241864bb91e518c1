/**
 * The fleet: 20 instances (worker threads running the built `promptlock/live`) share one real
 * Redis and call 50 prompts for 10 s with ttl 1 s. Counted at the service (a counting proxy in
 * front of `promptlock serve`): at most one get per prompt per ttl for the whole fleet. Then Redis
 * is killed and the calls go on, none failing.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, expect, it } from 'vitest';
import { LOCAL_TEST_KEY, startServer } from '../../src/server/index.js';
import { writeServedFolder } from '../helpers/served-folder.js';
import { countingProxy, generateFrom, REDIS_SERVER, startRedis } from './helpers.js';

const INSTANCES = 12;
const PROMPTS = 50;
const TTL_SECONDS = 1;
const RUN_MS = 7_000;
/** At least this long after Redis dies, and until every instance has served a call (at most 20 s: a loaded machine). */
const AFTER_KILL_MS = 1_500;
const AFTER_KILL_LIMIT_MS = 20_000;
const LIVE_BUILD = fileURLToPath(new URL('../../dist/live.js', import.meta.url));

const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => {});
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function tally(all: Array<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const one of all) for (const [key, count] of Object.entries(one)) out[key] = (out[key] ?? 0) + count;
  return out;
}

interface Done {
  events: Record<string, number>;
  reasons: Record<string, number>;
  calls: number;
  failures: number;
  callsAtMark: number;
  failuresAtMark: number;
  errors: string[];
  sources: Record<string, number>;
}

it('gets each prompt at most once per ttl for the whole fleet, and survives Redis dying', { timeout: 90_000 }, async () => {
  expect(existsSync(REDIS_SERVER), `${REDIS_SERVER} is needed (Debian: apt-get install redis-server; .ci/run installs it)`).toBe(true);
  expect(existsSync(LIVE_BUILD), 'dist/live.js is needed: run `npx tsup` first (npm test builds)').toBe(true);
  const root = await mkdtemp(path.join(tmpdir(), 'promptlock-fleet-'));
  cleanup.push(() => rm(root, { recursive: true, force: true }));
  await writeServedFolder(path.join(root, 'served'), PROMPTS, 1);
  const server = await startServer({
    dir: path.join(root, 'served'),
    port: 0,
    rateLimits: { authenticated: { perMinute: 1_000_000, perHour: 10_000_000 } },
  });
  cleanup.push(() => server.close());
  const names = Array.from({ length: PROMPTS }, (_, i) => `@bulk/prompt-${String(i).padStart(4, '0')}`);
  const module = await generateFrom(
    server.url,
    path.join(root, 'app'),
    names.map((name) => `${name}:latest`),
  );
  const proxy = await countingProxy(server.url);
  cleanup.push(() => proxy.close());
  const redis = await startRedis();
  cleanup.push(() => redis.kill());

  const workers: Worker[] = [];
  const done: Array<Promise<Done>> = [];
  const ready: Array<Promise<void>> = [];
  const servedAfterMark: Array<Promise<void>> = [];
  for (let i = 0; i < INSTANCES; i++) {
    const worker = new Worker(new URL('./fleet-worker.mjs', import.meta.url), {
      env: { ...process.env, PROMPTLOCK_API_KEY: LOCAL_TEST_KEY, PROMPTLOCK_BASE_URL: '' },
      workerData: {
        liveUrl: pathToFileURL(LIVE_BUILD).href,
        moduleUrl: pathToFileURL(module.modulePath).href,
        lockfilePath: module.lockfilePath,
        baseUrl: proxy.url,
        redisUrl: redis.url,
        ttl: TTL_SECONDS,
        // The service above allows this much; the default share of 1,000/min would hold refreshes back.
        rateLimit: 1_000_000,
      },
    });
    workers.push(worker);
    cleanup.push(() => worker.terminate());
    ready.push(new Promise((resolve) => worker.on('message', (m: { type: string }) => m.type === 'ready' && resolve())));
    servedAfterMark.push(
      new Promise((resolve) => worker.on('message', (m: { type: string }) => m.type === 'served-after-mark' && resolve())),
    );
    done.push(
      new Promise((resolve, reject) => {
        worker.on('message', (m: Done & { type: string }) => m.type === 'done' && resolve(m));
        worker.on('error', reject);
      }),
    );
  }
  const t0 = Date.now();
  await Promise.all(ready);
  const readyMs = Date.now() - t0;
  await sleep(RUN_MS);
  const counted = new Map(proxy.gets);
  const seconds = (Date.now() - proxy.firstGetAt!) / 1000;

  await redis.kill();
  for (const worker of workers) worker.postMessage('mark');
  await Promise.all([sleep(AFTER_KILL_MS), Promise.race([Promise.all(servedAfterMark), sleep(AFTER_KILL_LIMIT_MS)])]);
  for (const worker of workers) worker.postMessage('stop');
  const t1 = Date.now();
  const results = await Promise.all(done);
  const stoppedMs = Date.now() - t1;

  const bound = Math.ceil(seconds / TTL_SECONDS) + 1;
  const counts = names.map((name) => counted.get(name) ?? 0);
  const max = Math.max(...counts);
  const total = counts.reduce((a, b) => a + b, 0);
  const calls = results.reduce((sum, r) => sum + r.callsAtMark, 0);
  const callsAfterKill = results.reduce((sum, r) => sum + r.calls - r.callsAtMark, 0);
  console.log(
    `fleet: ${INSTANCES} instances, ${PROMPTS} prompts, ttl ${TTL_SECONDS} s, ${seconds.toFixed(1)} s with Redis: ` +
      `${calls} calls, ${total} gets at the service (${(total / PROMPTS / seconds).toFixed(2)} per prompt per second; ` +
      `most for one prompt ${max}, bound ${bound}); ${callsAfterKill} calls after Redis was killed; ` +
      `workers ready in ${readyMs} ms, stopped in ${stoppedMs} ms; events ${JSON.stringify(tally(results.map((r) => r.events)))}, why ${JSON.stringify(tally(results.map((r) => r.reasons)))}`,
  );
  expect(results.flatMap((r) => r.errors)).toEqual([]);
  expect(results.reduce((sum, r) => sum + r.failures, 0)).toBe(0);
  expect(Math.min(...counts)).toBeGreaterThanOrEqual(1);
  expect(max).toBeLessThanOrEqual(bound);
  expect(callsAfterKill).toBeGreaterThan(0);
  expect(results.every((r) => r.calls > r.callsAtMark)).toBe(true);
});
