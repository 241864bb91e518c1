/**
 * The Redis store against a real redis-server: one refresher per key per ttl, prompts shared,
 * hostile values validated, and a Redis that is not there degrades to memory, never to errors.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createLivePrompts, type LiveEvent, redisStore } from '../../src/live/index.js';
import { LOCAL_TEST_KEY, type RunningServer, startServer } from '../../src/server/index.js';
import { freePort, type GeneratedModule, generateFrom, publish, startRedis } from './helpers.js';

const cleanup: Array<() => Promise<unknown>> = [];
let server: RunningServer;
let module: GeneratedModule;
let redisUrl: string;

beforeAll(async () => {
  vi.stubEnv('PROMPTLOCK_API_KEY', LOCAL_TEST_KEY);
  vi.stubEnv('PROMPTLOCK_BASE_URL', '');
  const root = await mkdtemp(path.join(tmpdir(), 'promptlock-live-redis-'));
  cleanup.push(() => rm(root, { recursive: true, force: true }));
  await publish(path.join(root, 'ws'), '@acme/a', 'v1', 'one {{x}}');
  server = await startServer({ dir: path.join(root, 'ws'), port: 0 });
  cleanup.push(() => server.close());
  module = await generateFrom(server.url, path.join(root, 'app'), ['@acme/a:latest']);
  await publish(path.join(root, 'ws'), '@acme/a', 'v2', 'two {{x}}');
  await server.reload();
  const redis = await startRedis();
  cleanup.push(() => redis.kill());
  redisUrl = redis.url;
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
  vi.unstubAllEnvs();
});

// Generous timeouts where Redis is up: on a loaded two-core box a first connection can take longer
// than the 500 ms default, which would read as an outage (tested on its own below).
const patient = { connectTimeoutMs: 5_000, commandTimeoutMs: 2_000 };

it('elects one refresher per key until the claim expires, and shares what was fetched', async () => {
  const a = redisStore({ url: redisUrl, prefix: 'elect:', ...patient });
  const b = redisStore({ url: redisUrl, prefix: 'elect:', ...patient });
  cleanup.push(
    () => a.close(),
    () => b.close(),
  );
  const claims = await Promise.all([a.claim('k', 60_000), b.claim('k', 60_000), a.claim('k', 60_000), b.claim('k', 60_000)]);
  expect(claims.filter(Boolean)).toHaveLength(1);
  await a.set('k', { fetchedAt: 123, prompt: { any: 'thing' } });
  expect(await b.get('k')).toEqual({ fetchedAt: 123, prompt: { any: 'thing' } });
  expect(await b.get('missing')).toBeUndefined();
  await b.hold('k2', 60_000);
  expect(await a.claim('k2', 10)).toBe(false);
});

it('degrades to memory when Redis is not there: calls follow the service, one store-error event', async () => {
  const deadUrl = `redis://127.0.0.1:${await freePort()}`;
  const events: LiveEvent[] = [];
  const live = createLivePrompts(module.prompts, {
    baseUrl: server.url,
    lockfile: module.lockfilePath,
    ttl: 0.05,
    store: redisStore({ url: deadUrl, connectTimeoutMs: 100 }),
    onEvent: (e) => events.push(e),
  });
  cleanup.push(() => live.close());
  // Each call answers (the snapshot while the store has failed for less than a ttl: a store that
  // fails for a moment must not send a fleet to the service), then from the service on its own.
  await vi.waitFor(
    async () => {
      const answer = await live['@acme/a']!({ x: '1' });
      expect(answer.content).toBe('two 1');
    },
    { timeout: 10_000, interval: 30 },
  );
  const storeErrors = events.filter((e) => e.type === 'store-error');
  expect(storeErrors).toEqual([
    {
      type: 'store-error',
      message: `The live prompts store failed; using this process's memory until it answers again: Redis at ${new URL(deadUrl).host} is not connected: nothing accepts connections there (ECONNREFUSED)`,
    },
  ]);
  expect(live.status()[0]).toMatchObject({ version: 'v2', source: 'live' });
});

it('a Redis that stops answering is named with the wait it was given, not in ioredis words', async () => {
  const redis = await startRedis();
  cleanup.push(() => redis.kill());
  const store = redisStore({ url: redis.url, ...patient, commandTimeoutMs: 200 });
  cleanup.push(() => store.close());
  // Connected first (a slow answer here, on a loaded box, changes nothing below).
  await store.set('k', { fetchedAt: 1, prompt: 'p' }).catch(() => {});
  process.kill(redis.child.pid!, 'SIGSTOP');
  try {
    await expect(store.get('k')).rejects.toThrow(`Redis at ${new URL(redis.url).host} did not answer within 200 ms (commandTimeoutMs)`);
  } finally {
    process.kill(redis.child.pid!, 'SIGCONT');
  }
});

it('a Redis that refuses the password says so in its own words, without the password', async () => {
  const redis = await startRedis();
  cleanup.push(() => redis.kill());
  const store = redisStore({ url: redis.url.replace('redis://', 'redis://app:hunter2@'), connectTimeoutMs: 1_000 });
  cleanup.push(() => store.close());
  const failure = await store.get('k').then(
    () => undefined,
    (error: Error) => error.message,
  );
  expect(failure).toBe(
    `Redis at ${new URL(redis.url).host} is not connected: WRONGPASS invalid username-password pair or user is disabled.`,
  );
  expect(failure).not.toContain('hunter2');
});
