/**
 * Issue 28, build item 9: `promptlock/live` talks through the CLI's client, so each wire rule holds
 * for it too: a declared charset is honoured, bytes that are not text in theirs are refused (the
 * last good version stays, never a U+FFFD), a 404 never takes a prompt away, and a key that cannot
 * be sent is a setup error at once.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { createLivePrompts, type LiveEvent } from '../../src/live/index.js';
import { LOCAL_TEST_KEY, type RunningServer, startServer } from '../../src/server/index.js';
import { type WireChange, wireProxy } from '../helpers/wire-proxy.js';
import { type GeneratedModule, generateFrom, publish } from './helpers.js';

const cleanup: Array<() => Promise<unknown>> = [];
let root: string;
let server: RunningServer;
let module: GeneratedModule;
let proxyUrl: string;
/** What the wire does to the service's answers now. */
let change: WireChange | undefined;

beforeAll(async () => {
  vi.stubEnv('PROMPTLOCK_API_KEY', LOCAL_TEST_KEY);
  vi.stubEnv('BAYT_API_KEY', '');
  vi.stubEnv('PROMPTLOCK_BASE_URL', '');
  root = await mkdtemp(path.join(tmpdir(), 'promptlock-live-wire-'));
  cleanup.push(() => rm(root, { recursive: true, force: true }));
  await publish(path.join(root, 'ws'), '@acme/menu', 'v1', 'Un café, {{name}}.');
  server = await startServer({ dir: path.join(root, 'ws'), port: 0 });
  cleanup.push(() => server.close());
  module = await generateFrom(server.url, path.join(root, 'app'), ['@acme/menu:latest']);
  proxyUrl = (await wireProxy(server.url, { change: (request) => (request.method === 'POST' ? change : undefined) })).url;
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
  vi.unstubAllEnvs();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function publishVersion(version: string, content: string): Promise<void> {
  await publish(path.join(root, 'ws'), '@acme/menu', version, content);
  await server.reload();
}

/** The next fallback event after now. */
function nextFallback(events: LiveEvent[]): Promise<string> {
  const from = events.length;
  return vi.waitFor(
    () => {
      const found = events.slice(from).find((e) => e.type === 'fallback') as { reason: string } | undefined;
      if (!found) throw new Error('no fallback yet');
      return found.reason;
    },
    { timeout: 5_000 },
  );
}

it('honours a declared charset, refuses bytes that are not text in theirs, and keeps serving through a 404', async () => {
  const events: LiveEvent[] = [];
  const live = createLivePrompts(module.prompts, {
    baseUrl: proxyUrl,
    lockfile: module.lockfilePath,
    ttl: 0.05,
    onEvent: (e) => events.push(e),
  });
  cleanup.push(() => live.close());

  // Latin-1, declared: read as sent.
  change = { charset: 'latin1', declare: 'iso-8859-1' };
  await publishVersion('v2', 'Une crème brûlée, {{name}}.');
  expect(await live['@acme/menu']!({ name: 'Ada' })).toMatchObject({ version: 'v2', content: 'Une crème brûlée, Ada.' });

  // Latin-1 sent as UTF-8: refused, the last good version stays.
  change = { charset: 'latin1', declare: 'utf-8' };
  await publishVersion('v3', 'Un thé glacé, {{name}}.');
  await sleep(80);
  const refused = nextFallback(events);
  await live['@acme/menu']!({ name: 'Ada' });
  expect(await refused).toMatch(/with an invalid body: the body is not valid UTF-8 \(as its Content-Type declares\) at byte \d+/);
  expect(await live['@acme/menu']!({ name: 'Ada' })).toMatchObject({ version: 'v2', content: 'Une crème brûlée, Ada.' });

  // The prompt's get answers 404 (deleted on the service): nothing is taken away.
  change = { status: 404, body: { error: { code: 'not_found', message: 'Prompt not found.' } } };
  await sleep(80);
  const missing = nextFallback(events);
  await live['@acme/menu']!({ name: 'Ada' });
  expect(await missing).toContain(`Prompt @acme/menu:latest was not found (404) at ${proxyUrl}`);
  expect(await live['@acme/menu']!({ name: 'Ada' })).toMatchObject({ version: 'v2', content: 'Une crème brûlée, Ada.' });
  expect(live.status()[0]).toMatchObject({ version: 'v2', source: 'live' });
  expect(JSON.stringify([events, live.status()])).not.toContain('\ufffd');
});

it('a key that cannot be sent is a setup error at once, naming its file and character', async () => {
  const app = path.dirname(module.lockfilePath);
  vi.stubEnv('PROMPTLOCK_API_KEY', undefined);
  await writeFile(path.join(app, '.env.local'), `PROMPTLOCK_API_KEY=${LOCAL_TEST_KEY}\u200b\n`);
  try {
    const create = () => createLivePrompts(module.prompts, { baseUrl: proxyUrl, lockfile: module.lockfilePath });
    expect(create).toThrow(ConfigError);
    expect(create).toThrow(
      'from PROMPTLOCK_API_KEY in .env.local cannot be sent in a request: character 51 of 51 is U+200B (a zero-width space).',
    );
  } finally {
    await rm(path.join(app, '.env.local'));
    vi.stubEnv('PROMPTLOCK_API_KEY', LOCAL_TEST_KEY);
  }
});
