/**
 * Issue 30, item 8: a fleet cache entry is signed, but a signature does not say when. Someone with
 * write access to the store (not the key) who captured an older entry (a version since withdrawn on
 * the service) writes it back: an instance that has already seen a later answer must not step back
 * to it. In-process, over the memory store, against the real local service.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { FleetCache } from '../../src/live/fleet-cache.js';
import { createLivePrompts, type LiveEvent, memoryStore } from '../../src/live/index.js';
import { LOCAL_TEST_KEY, type RunningServer, startServer } from '../../src/server/index.js';
import { type GeneratedModule, generateFrom, publish } from './helpers.js';

const cleanup: Array<() => Promise<unknown>> = [];
let server: RunningServer;
let root: string;
let module: GeneratedModule;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  vi.stubEnv('PROMPTLOCK_API_KEY', LOCAL_TEST_KEY);
  vi.stubEnv('PROMPTLOCK_BASE_URL', '');
  root = await mkdtemp(path.join(tmpdir(), 'promptlock-live-replay-'));
  cleanup.push(() => rm(root, { recursive: true, force: true }));
  await publish(path.join(root, 'service'), '@acme/a', 'v1', 'good {{x}}');
  server = await startServer({ dir: path.join(root, 'service'), port: 0 });
  cleanup.push(() => server.close());
  module = await generateFrom(server.url, path.join(root, 'app'), ['@acme/a:latest']);
});
afterAll(async () => {
  vi.useRealTimers();
  for (const fn of cleanup.reverse()) await fn();
  vi.unstubAllEnvs();
});

it('an instance never steps back to an older signed entry written back into the store', async () => {
  const store = memoryStore();
  const key = new FleetCache(store, server.url, LOCAL_TEST_KEY).key('@acme/a', 'latest');
  const events: LiveEvent[] = [];
  const prompts = createLivePrompts(module.prompts, {
    baseUrl: server.url,
    lockfile: module.lockfilePath,
    store,
    ttl: 1,
    onEvent: (e) => events.push(e),
  });
  cleanup.push(() => prompts.close());
  const call = async () => (await prompts['@acme/a']!({ x: '1' })).content;

  // v2 is published, fetched by the fleet and captured from the store.
  await publish(path.join(root, 'service'), '@acme/a', 'v2', 'bad {{x}}');
  await server.reload();
  expect(await call()).toBe('bad 1');
  const captured = (await store.get(key))!;
  expect(captured.mac).toBeTruthy();

  // v2 is withdrawn: the service answers v1 again, and the instance steps back to it.
  await rm(path.join(root, 'service', 'acme', 'a', 'v2.md'));
  await server.reload();
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + 1_100);
  await call();
  await sleep(200);
  expect(await call()).toBe('good 1');
  expect(events.some((e) => e.type === 'step-back')).toBe(true);

  // The captured entry is written back, and the refresh is held (as when another instance refreshes).
  await store.set(key, captured);
  await store.hold(key, 10 * 60_000);
  vi.setSystemTime(Date.now() + 1_100);
  await call();
  await sleep(200);
  expect(await call()).toBe('good 1');
  expect(prompts.status()[0]).toMatchObject({ version: 'v1' });
});
