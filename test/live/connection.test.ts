/**
 * promptlock/live reads the key and base URL where the CLI does: the environment first, then
 * `.env` and `.env.local` of the project (the lockfile's folder), then the `baseUrl` option; and
 * every fallback reason names the address it tried.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { createLivePrompts, type LiveEvent } from '../../src/live/index.js';
import { LOCAL_TEST_KEY, type RunningServer, startServer } from '../../src/server/index.js';
import { freePort, type GeneratedModule, generateFrom, publish } from './helpers.js';

const cleanup: Array<() => Promise<unknown>> = [];
let server: RunningServer;
let module: GeneratedModule;
let app: string;

beforeAll(async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'promptlock-live-env-'));
  cleanup.push(() => rm(root, { recursive: true, force: true }));
  await publish(path.join(root, 'ws'), '@acme/a', 'v1', 'one');
  server = await startServer({ dir: path.join(root, 'ws'), port: 0 });
  cleanup.push(() => server.close());
  app = path.join(root, 'app');
  module = await generateFrom(server.url, app, ['@acme/a:latest']);
  await publish(path.join(root, 'ws'), '@acme/a', 'v2', 'two');
  await server.reload();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await rm(path.join(app, '.env'), { force: true });
  await rm(path.join(app, '.env.local'), { force: true });
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

/** No key and no address in the real environment. */
function bareEnvironment() {
  for (const name of ['PROMPTLOCK_API_KEY', 'BAYT_API_KEY', 'PROMPTLOCK_BASE_URL']) vi.stubEnv(name, undefined);
}

function live(options: Parameters<typeof createLivePrompts>[1] = {}) {
  const events: LiveEvent[] = [];
  const prompts = createLivePrompts(module.prompts, { lockfile: module.lockfilePath, ...options, onEvent: (e) => events.push(e) });
  cleanup.push(() => prompts.close());
  return { prompts, events };
}

it('takes the key from .env and the address from .env.local of the lockfile’s project', async () => {
  bareEnvironment();
  await writeFile(path.join(app, '.env'), `PROMPTLOCK_API_KEY=${LOCAL_TEST_KEY}\nPROMPTLOCK_BASE_URL=https://api.example.invalid\n`);
  await writeFile(path.join(app, '.env.local'), `PROMPTLOCK_BASE_URL=${server.url}\n`);
  const { prompts } = live();
  expect((await prompts['@acme/a']!()).content).toBe('two');
  expect(prompts.status()[0]).toMatchObject({ source: 'live', version: 'v2' });
});

it('lets the real environment win over the files, and names the address it tried in the reason', async () => {
  bareEnvironment();
  const dead = `http://127.0.0.1:${await freePort()}`;
  vi.stubEnv('PROMPTLOCK_BASE_URL', dead);
  await writeFile(path.join(app, '.env'), `PROMPTLOCK_API_KEY=${LOCAL_TEST_KEY}\nPROMPTLOCK_BASE_URL=${server.url}\n`);
  const { prompts, events } = live({ baseUrl: server.url });
  expect((await prompts['@acme/a']!()).content).toBe('one');
  const fallback = events.find((e) => e.type === 'fallback') as { reason: string } | undefined;
  // The CLI's own words (the same client): the address tried is in them.
  expect(fallback?.reason).toBe(`Could not reach the prompt service at ${dead}: ECONNREFUSED`);
  expect(prompts.status()[0]!.reason).toBe(`Could not reach the prompt service at ${dead}: ECONNREFUSED; serving v1 (committed snapshot)`);
});

it('without a key anywhere, does not call the hosted service and says where it looked', async () => {
  bareEnvironment();
  const { prompts } = live();
  expect((await prompts['@acme/a']!()).content).toBe('one');
  expect(prompts.status()[0]!.reason).toBe(
    `no API key for the service at https://api.baytos.ai (set PROMPTLOCK_API_KEY in the environment or in .env or .env.local of ${app}); serving v1 (committed snapshot)`,
  );
});

it('refuses an address from .env it would send the key unencrypted to, naming where it came from', async () => {
  bareEnvironment();
  await writeFile(path.join(app, '.env'), `PROMPTLOCK_API_KEY=${LOCAL_TEST_KEY}\nPROMPTLOCK_BASE_URL=http://example.com\n`);
  expect(() => live()).toThrow(ConfigError);
  expect(() => live()).toThrow('from PROMPTLOCK_BASE_URL in .env (key sk_test…0000)');
});
