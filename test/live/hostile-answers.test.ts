/**
 * What a hostile or confused service can make live prompts do, bounded: waits it asks for are
 * capped at the CLI's cap (also the Redis refresher key's hold), its error text reaches `status()`
 * and events cleaned and cut, a draft is not served to a prompt that does not follow drafts, and a
 * step back to a lower version is reported.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { CLIENT_DEFAULTS } from '../../src/config/client-defaults.js';
import { FleetCache } from '../../src/live/fleet-cache.js';
import { createLivePrompts, type LiveEvent, redisStore } from '../../src/live/index.js';
import { MAX_REASON_CHARS } from '../../src/live/prompt-state.js';
import { LOCAL_TEST_KEY, startServer } from '../../src/server/index.js';
import { validPrompt } from '../helpers/valid-prompt.js';
import { type GeneratedModule, generateFrom, publish, type ScriptedAnswer, scriptedService, startRedis } from './helpers.js';

const cleanup: Array<() => Promise<unknown>> = [];
let module: GeneratedModule;
let answer: (name: string) => ScriptedAnswer;
let url: string;
const CAP_MS = CLIENT_DEFAULTS.maxRetryAfterMs;

beforeAll(async () => {
  vi.stubEnv('PROMPTLOCK_API_KEY', LOCAL_TEST_KEY);
  vi.stubEnv('PROMPTLOCK_BASE_URL', '');
  const root = await mkdtemp(path.join(tmpdir(), 'promptlock-live-hostile-'));
  cleanup.push(() => rm(root, { recursive: true, force: true }));
  await publish(path.join(root, 'ws'), '@acme/a', 'v1', 'Hello {{name}}');
  const server = await startServer({ dir: path.join(root, 'ws'), port: 0 });
  cleanup.push(() => server.close());
  module = await generateFrom(server.url, path.join(root, 'app'), ['@acme/a:latest']);
  const service = await scriptedService((name) => answer(name));
  cleanup.push(() => service.close());
  url = service.url;
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
  vi.unstubAllEnvs();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function live(options: Parameters<typeof createLivePrompts>[1] = {}) {
  const events: LiveEvent[] = [];
  const prompts = createLivePrompts(module.prompts, {
    baseUrl: url,
    lockfile: module.lockfilePath,
    ...options,
    onEvent: (e) => events.push(e),
  });
  cleanup.push(() => prompts.close());
  return { prompts, events };
}

const ok = (fields: Record<string, unknown>): ScriptedAnswer => ({
  status: 200,
  body: validPrompt('@acme/a', { content: 'Hi {{name}}', packageName: `@acme/a:${fields.version ?? 'v1'}`, ...fields }),
});

it('caps a Retry-After of a year at the CLI cap, in the reason and in the Redis refresher key', async () => {
  const redis = await startRedis();
  cleanup.push(() => redis.kill());
  answer = () => ({
    status: 429,
    headers: { 'retry-after': '31536000' },
    body: { error: { code: 'rate_limited', message: 'Slow down.' } },
  });
  const store = redisStore({ url: redis.url, connectTimeoutMs: 5_000, commandTimeoutMs: 2_000 });
  const { prompts } = live({ store });
  await prompts['@acme/a']!({ name: 'Ada' });
  const reason = prompts.status()[0]!.reason;
  expect(reason).toContain(`no refresh for ${CAP_MS / 1000} s`);
  // One clause, one stop: "Slow down (rate limit…); serving", never "Slow down.; serving" or ".)".
  expect(reason).toMatch(/: Slow down \(rate limit; no refresh for \d+ s\); serving v1 \(committed snapshot\)$/);
  const client = new Redis(redis.url);
  cleanup.push(() => client.quit());
  const key = new FleetCache(store, url, LOCAL_TEST_KEY).key('@acme/a', 'latest');
  const ttl = await client.pttl(`promptlock:live:${key}:refresher`);
  expect(ttl).toBeGreaterThan(CAP_MS - 10_000);
  expect(ttl).toBeLessThanOrEqual(CAP_MS);
});

it('caps an X-RateLimit-Reset hold at the same cap', async () => {
  const resetIn = 31_536_000;
  let gets = 0;
  answer = () => {
    gets++;
    return {
      ...ok({ version: 'v1', content: 'Hello {{name}}' }),
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(resetIn) },
    };
  };
  const { prompts } = live({ ttl: 0.05 });
  await prompts['@acme/a']!({ name: 'Ada' });
  await sleep(80);
  // The window is used up: the client refuses the next refresh unsent, with the time to the reset, capped.
  await prompts['@acme/a']!({ name: 'Ada' });
  await vi.waitFor(() => expect(prompts.status()[0]!.reason).toMatch(/rate limit is used up .*\(rate limit; no refresh for (\d+) s\)/), {
    timeout: 5_000,
  });
  expect(Number(/no refresh for (\d+) s/.exec(prompts.status()[0]!.reason)![1]) * 1000).toBe(CAP_MS);
  expect(prompts.status()[0]!.reason).toContain(`(${url}); not sent`);
  expect(gets).toBe(1);
});

it('cleans and cuts the service’s error text in status() and events', async () => {
  const hostile = `\x1b]0;owned\x07\x1b[2J line one\nline two \u202eevil\u202c ${'x'.repeat(200_000)}`;
  answer = () => ({ status: 500, body: { error: { code: 'internal', message: hostile } } });
  const { prompts, events } = live();
  await prompts['@acme/a']!({ name: 'Ada' });
  const fallback = events.find((e) => e.type === 'fallback') as { reason: string } | undefined;
  for (const text of [fallback!.reason, prompts.status()[0]!.reason]) {
    expect(text).toMatch(
      /^the service at \S+: The service failed with 500 internal while fetching @acme\/a:latest, 1 attempt: +line one\\nline two evil x+… \(cut at 500 characters\)/,
    );
    expect(text).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
    expect(text.length).toBeLessThan(MAX_REASON_CHARS + 200);
  }
});

it('refuses a draft (v0) for a prompt locked at latest, and reports a step back to a lower version', async () => {
  answer = () => ok({ version: 'v0', packageName: '@acme/a:v0' });
  const drafted = live({ ttl: 0.05 });
  expect((await drafted.prompts['@acme/a']!({ name: 'Ada' })).version).toBe('v1');
  expect(drafted.prompts.status()[0]!.reason).toContain('answered the draft v0 for @acme/a, which is locked at latest, not :draft');

  answer = () => ok({ version: 'v3' });
  const stepped = live({ ttl: 0.05 });
  expect((await stepped.prompts['@acme/a']!({ name: 'Ada' })).version).toBe('v3');
  answer = () => ok({ version: 'v2', content: 'Back {{name}}' });
  await sleep(80);
  await stepped.prompts['@acme/a']!({ name: 'Ada' });
  await vi.waitFor(() =>
    expect(stepped.events.find((e) => e.type === 'step-back')).toEqual({
      type: 'step-back',
      name: '@acme/a',
      from: 'v3',
      to: 'v2',
      source: 'live',
    }),
  );
  expect((await stepped.prompts['@acme/a']!({ name: 'Ada' })).content).toBe('Back Ada');
  expect(stepped.prompts.status()[0]!.reason).toContain('(a step back from v3)');
});

it('ends a service message with one stop before "; serving", never "one.; serving"', async () => {
  answer = () => ({ status: 403, body: { error: { code: 'forbidden', message: 'No access to this one.' } } });
  const { prompts, events } = live();
  await prompts['@acme/a']!({ name: 'Ada' });
  const said = `the service at ${url}: The API key sk_test…0000 has no access to workspace "acme" (403 forbidden) while fetching @acme/a:latest`;
  expect(prompts.status()[0]!.reason).toBe(`${said}; serving v1 (committed snapshot)`);
  expect(events.find((e) => e.type === 'fallback')).toMatchObject({ reason: said });
});
