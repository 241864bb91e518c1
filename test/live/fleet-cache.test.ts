/**
 * What the fleet cache trusts, against a real redis-server: entries are kept apart by service
 * address and key (production and staging on one Redis each serve their own service's text), and
 * an entry this instance's service did not answer (planted, unsigned, or too large to read) is
 * ignored with an event; the instance asks its own service and heals the entry.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { FleetCache } from '../../src/live/fleet-cache.js';
import { createLivePrompts, type LiveEvent, redisStore } from '../../src/live/index.js';
import { LOCAL_TEST_KEY, type RunningServer, startServer } from '../../src/server/index.js';
import { type GeneratedModule, generateFrom, publish, startRedis } from './helpers.js';

const cleanup: Array<() => Promise<unknown>> = [];
let production: RunningServer;
let staging: RunningServer;
let module: GeneratedModule;
let redisUrl: string;
let redis: Redis;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const patient = { connectTimeoutMs: 5_000, commandTimeoutMs: 2_000 };

async function serve(root: string, folder: string, content: string): Promise<RunningServer> {
  await publish(path.join(root, folder), '@acme/a', 'v1', 'one {{x}}');
  const server = await startServer({ dir: path.join(root, folder), port: 0 });
  cleanup.push(() => server.close());
  await publish(path.join(root, folder), '@acme/a', 'v2', content);
  return server;
}

beforeAll(async () => {
  vi.stubEnv('PROMPTLOCK_API_KEY', LOCAL_TEST_KEY);
  vi.stubEnv('PROMPTLOCK_BASE_URL', '');
  const root = await mkdtemp(path.join(tmpdir(), 'promptlock-live-fleet-cache-'));
  cleanup.push(() => rm(root, { recursive: true, force: true }));
  production = await serve(root, 'production', 'production {{x}}');
  staging = await serve(root, 'staging', 'staging {{x}}');
  module = await generateFrom(production.url, path.join(root, 'app'), ['@acme/a:latest']);
  await production.reload();
  await staging.reload();
  const server = await startRedis();
  cleanup.push(() => server.kill());
  redisUrl = server.url;
  redis = new Redis(redisUrl, { lazyConnect: false });
  cleanup.push(() => redis.quit());
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
  vi.unstubAllEnvs();
});

function live(baseUrl: string, prefix: string, store = redisStore({ url: redisUrl, prefix, ...patient })) {
  const events: LiveEvent[] = [];
  const prompts = createLivePrompts(module.prompts, { baseUrl, lockfile: module.lockfilePath, store, onEvent: (e) => events.push(e) });
  cleanup.push(() => prompts.close());
  return { prompts, events };
}

it('keeps production and staging apart on one Redis: each serves only what its own service answered', async () => {
  production.resetStats();
  staging.resetStats();
  const prod = live(production.url, 'shared:');
  expect((await prod.prompts['@acme/a']!({ x: '1' })).content).toBe('production 1');
  const stage = live(staging.url, 'shared:');
  expect((await stage.prompts['@acme/a']!({ x: '1' })).content).toBe('staging 1');
  // A second production instance reads production's entry: the fleet still shares.
  const prod2 = live(production.url, 'shared:');
  expect((await prod2.prompts['@acme/a']!({ x: '1' })).content).toBe('production 1');
  expect(prod2.prompts.status()[0]).toMatchObject({ source: 'cache' });
  expect(production.stats.byRoute.get).toBe(1);
  expect(staging.stats.byRoute.get).toBe(1);
  // Nothing in Redis holds the key.
  const keys = await redis.keys('shared:*');
  expect(keys.length).toBeGreaterThan(0);
  for (const key of keys) {
    expect(key).not.toContain(LOCAL_TEST_KEY);
    if ((await redis.type(key)) === 'string') expect(await redis.get(key)).not.toContain(LOCAL_TEST_KEY);
  }
});

it('ignores a planted entry (a version the service never had, unsigned or signed with another key), with an event', async () => {
  const key = new FleetCache(redisStore({ url: redisUrl }), production.url, LOCAL_TEST_KEY).key('@acme/a', 'latest');
  const forged = { fetchedAt: Date.now(), prompt: { ...module.prompts['@acme/a']!({ x: '{{x}}' }), version: 'v9', content: 'evil {{x}}' } };
  const other = new FleetCache(
    redisStore({ url: redisUrl, prefix: 'planted:', ...patient }),
    production.url,
    'sk_live_SomeOtherKey000000000000abcd',
  );
  for (const [label, plant] of [
    ['unsigned', async () => redis.set(`planted:${key}`, JSON.stringify(forged))],
    ['signed with another key', () => other.set(key, forged.fetchedAt, forged.prompt)],
  ] as const) {
    await redis.flushall();
    await plant();
    const { prompts, events } = live(production.url, 'planted:');
    expect((await prompts['@acme/a']!({ x: '1' })).content, label).toBe('production 1');
    expect(
      events.find((e) => e.type === 'store-refused'),
      label,
    ).toMatchObject({ name: '@acme/a', reason: expect.stringMatching(/signature/) });
    // Healed: the entry is now the service's answer, signed.
    expect(JSON.parse((await redis.get(`planted:${key}`))!).prompt.version, label).toBe('v2');
  }
});

it('refuses a signed entry that is not a valid prompt, like an answer of the service', async () => {
  await redis.flushall();
  const store = redisStore({ url: redisUrl, prefix: 'hostile:', ...patient });
  const cache = new FleetCache(store, production.url, LOCAL_TEST_KEY);
  await cache.set(cache.key('@acme/a', 'latest'), Date.now(), {
    packageName: '@acme/a:v3',
    version: 'v3',
    content: 'evil {{x}}',
    title: 1,
  });
  const { prompts, events } = live(production.url, 'hostile:', store);
  expect((await prompts['@acme/a']!({ x: '1' })).content).toBe('production 1');
  const fallback = events.find((e) => e.type === 'fallback') as { reason: string } | undefined;
  expect(fallback?.reason).toMatch(/^the store answered a refused prompt \(field "id" is missing\)/);
});

it('asks a value its size before reading it: one over maxValueBytes is never read', async () => {
  await redis.flushall();
  const key = new FleetCache(redisStore({ url: redisUrl }), production.url, LOCAL_TEST_KEY).key('@acme/a', 'latest');
  await redis.set(`big:${key}`, 'x'.repeat(2 * 1024 * 1024));
  const { prompts, events } = live(
    production.url,
    'big:',
    redisStore({ url: redisUrl, prefix: 'big:', maxValueBytes: 64 * 1024, ...patient }),
  );
  expect((await prompts['@acme/a']!({ x: '1' })).content).toBe('production 1');
  expect(events.find((e) => e.type === 'store-refused')).toMatchObject({
    reason: `its value is ${2 * 1024 * 1024} bytes, over the bound of ${64 * 1024} (maxValueBytes)`,
  });
  expect(events.filter((e) => e.type === 'store-error')).toEqual([]);
});

it('does not serve a stale entry forever behind a refresher key that never expires', async () => {
  await redis.flushall();
  const store = redisStore({ url: redisUrl, prefix: 'stuck:', ...patient });
  const cache = new FleetCache(store, production.url, LOCAL_TEST_KEY);
  const key = cache.key('@acme/a', 'latest');
  const cached = { ...module.prompts['@acme/a']!({ x: '{{x}}' }), content: 'cached {{x}}' };
  await cache.set(key, Date.now(), cached);
  // Someone with Redis access holds the refresher key with no expiry.
  await redis.set(`stuck:${key}:refresher`, 'forged');
  production.resetStats();
  const { prompts } = live(production.url, 'stuck:', store);
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    expect((await prompts['@acme/a']!({ x: '1' })).content).toBe('cached 1');
    // Far past any hold: the stale entry is dropped, and the held key is honoured only so long.
    // A minute on: stale but recent, and another instance holds the refresh: still the entry.
    vi.setSystemTime(Date.now() + 61_000);
    await prompts['@acme/a']!({ x: '1' });
    await sleep(200);
    expect((await prompts['@acme/a']!({ x: '1' })).content).toBe('cached 1');
    expect(production.stats.byRoute.get ?? 0).toBe(0);
    // Five more: past the longest hold, the entry is dropped and the held key no longer honoured.
    vi.setSystemTime(Date.now() + 5 * 60_000);
    await prompts['@acme/a']!({ x: '1' });
    await sleep(300);
    expect((await prompts['@acme/a']!({ x: '1' })).content).toBe('production 1');
    expect(production.stats.byRoute.get).toBe(1);
  } finally {
    vi.useRealTimers();
  }
});
