/**
 * promptlock/live against the real local service: the committed module is built from the
 * service's own answers, then new versions are published by writing files and `reload()`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, PromptlockError } from '../../src/errors.js';
import { createLivePrompts, type LiveEvent, memoryStore } from '../../src/live/index.js';
import { LOCAL_TEST_KEY, type RunningServer, type ServerOptions, startServer } from '../../src/server/index.js';
import { countingProxy, type GeneratedModule, generateFrom, publish } from './helpers.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
  vi.unstubAllEnvs();
});
beforeAll(() => {
  vi.stubEnv('PROMPTLOCK_API_KEY', LOCAL_TEST_KEY);
  vi.stubEnv('BAYT_API_KEY', '');
  vi.stubEnv('PROMPTLOCK_BASE_URL', '');
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Setup {
  root: string;
  server: RunningServer;
  module: GeneratedModule;
  publish(name: string, version: string, content: string): Promise<void>;
}

/** A folder with `authored` prompts, served, and the module generated from `entries`. */
async function setUp(
  authored: Array<[name: string, version: string, content: string]>,
  entries: string[],
  serverOptions: Partial<ServerOptions> = {},
  readings: Parameters<typeof generateFrom>[3] = {},
): Promise<Setup> {
  const root = await mkdtemp(path.join(tmpdir(), 'promptlock-live-'));
  cleanup.push(() => rm(root, { recursive: true, force: true }));
  for (const [name, version, content] of authored) await publish(path.join(root, 'ws'), name, version, content);
  const server = await startServer({ dir: path.join(root, 'ws'), port: 0, ...serverOptions });
  cleanup.push(() => server.close());
  const module = await generateFrom(server.url, path.join(root, 'app'), entries, readings);
  return {
    root,
    server,
    module,
    async publish(name, version, content) {
      await publish(path.join(root, 'ws'), name, version, content);
      await server.reload();
    },
  };
}

function live(setup: Setup, options: Parameters<typeof createLivePrompts>[1] = {}) {
  const events: LiveEvent[] = [];
  const prompts = createLivePrompts(setup.module.prompts, {
    baseUrl: setup.server.url,
    lockfile: setup.module.lockfilePath,
    ...options,
    onEvent: (event) => events.push(event),
  });
  cleanup.push(() => prompts.close());
  return { prompts, events };
}

/** Resolves on the next event of `type` for `name`. */
function nextEvent(events: LiveEvent[], type: LiveEvent['type'], name: string): Promise<LiveEvent> {
  const start = events.length;
  return vi.waitFor(
    () => {
      const found = events.slice(start).find((e) => e.type === type && (e as { name?: string }).name === name);
      if (!found) throw new Error(`no ${type} event for ${name} yet`);
      return found;
    },
    { timeout: 10_000, interval: 10 },
  );
}

describe('following the service', () => {
  let setup: Setup;
  beforeAll(async () => {
    setup = await setUp(
      [
        ['@acme/greet', 'v1', 'Hello {{name}}, you have {{count:number // items}} items.'],
        ['@acme/retype', 'v1', '{{count:number}} left'],
        ['@acme/conflict', 'v1', 'About {{topic}}'],
        ['@acme/fewer', 'v1', '{{a}} and {{b}}'],
      ],
      ['@acme/greet:latest', '@acme/retype', '@acme/conflict:latest', '@acme/fewer:latest'],
    );
  });

  it('serves a compatible new version within one ttl, renders like the service, and reports it', async () => {
    const { prompts, events } = live(setup, { ttl: 0.3 });
    const first = await prompts['@acme/greet']!({ name: 'Ada', count: 3 });
    expect(first.version).toBe('v1');
    expect(first.content).toBe('Hello Ada, you have 3 items.');
    // The committed version, fetched live, renders to exactly what the committed function returns.
    expect(prompts.status().find((s) => s.name === '@acme/greet')).toMatchObject({ source: 'live', version: 'v1' });
    // Only its provenance says it came live (docs/traces.md).
    const committed = setup.module.prompts['@acme/greet']!({ name: 'Ada', count: 3 });
    expect(first).toEqual({ ...committed, provenance: { ...committed.provenance, source: 'live', reviewedVersion: 'v1' } });

    await setup.publish('@acme/greet', 'v2', 'Hi {{ name }}! {{count:int // items}} new things.');
    const updated = nextEvent(events, 'update', '@acme/greet');
    await sleep(300); // one ttl: the next call refreshes in the background and answers at once
    expect((await prompts['@acme/greet']!({ name: 'Ada', count: 3 })).version).toBe('v1');
    expect(await updated).toMatchObject({ from: 'v1', to: 'v2', source: 'live' });
    const second = await prompts['@acme/greet']!({ name: 'Ada', count: 3 });
    expect(second.version).toBe('v2');
    expect(second.content).toBe('Hi Ada! 3 new things.');
    // It names the version followed and the reviewed one, whose integrity the lockfile holds.
    expect(second.provenance).toEqual({ ...committed.provenance, version: 'v2', source: 'live', reviewedVersion: 'v1' });
    expect(prompts.status().find((s) => s.name === '@acme/greet')).toMatchObject({ version: 'v2', source: 'live', followed: true });

    // A live render is the service's own render for the same variables.
    const response = await fetch(`${setup.server.url}/v1/prompts/get`, {
      method: 'POST',
      headers: { authorization: `Bearer ${LOCAL_TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ package_name: '@acme/greet', variables: { name: 'Ada', count: '3' } }),
    });
    const served = (await response.json()) as Record<string, unknown>;
    const { metadata: _m1, ...servedRest } = served;
    const { metadata: _m2, provenance: _p, ...liveRest } = second;
    expect(liveRest).toEqual({ ...servedRest, critiquePrompt: null });
  });

  it('keeps the last compatible version for a new variable, a retyped one or conflicting hints, and says why', async () => {
    const { prompts, events } = live(setup, { ttl: 0.2 });
    await prompts['@acme/retype']!({ count: 1 });
    await prompts['@acme/conflict']!({ topic: 'x' });
    await setup.publish('@acme/retype', 'v2', '{{count:string}} left');
    await setup.publish('@acme/conflict', 'v2', '{{topic:number}} and {{topic:bool}}');
    const greetVersion = (await prompts['@acme/greet']!({ name: 'A', count: 1 })).version;
    await setup.publish('@acme/greet', 'v9', 'Hi {{name}}, {{count:number}} for {{team}}');

    const waits = [
      nextEvent(events, 'incompatible', '@acme/greet'),
      nextEvent(events, 'incompatible', '@acme/retype'),
      nextEvent(events, 'incompatible', '@acme/conflict'),
    ];
    await sleep(200);
    await prompts['@acme/greet']!({ name: 'A', count: 1 });
    await prompts['@acme/retype']!({ count: 1 });
    await prompts['@acme/conflict']!({ topic: 'x' });
    const [greet, retype, conflict] = await Promise.all(waits);
    expect(greet).toMatchObject({ version: 'v9', serving: greetVersion });
    expect((greet as { reason: string }).reason).toContain('new variable "team"');
    expect((retype as { reason: string }).reason).toContain('variable "count" is string, the generated function takes number');
    expect((conflict as { reason: string }).reason).toContain('does not parse');

    expect((await prompts['@acme/greet']!({ name: 'A', count: 1 })).version).toBe(greetVersion);
    expect((await prompts['@acme/retype']!({ count: 1 })).content).toBe('1 left');
    const status = prompts.status();
    expect(status.find((s) => s.name === '@acme/greet')!.reason).toMatch(/v9 on the service is not compatible .*new variable "team"/);
    expect(status.find((s) => s.name === '@acme/retype')).toMatchObject({ version: 'v1' });
    expect(events.filter((e) => e.type === 'incompatible' && e.name === '@acme/greet')).toHaveLength(1);
  });

  it('serves a version with fewer variables', async () => {
    const { prompts, events } = live(setup, { ttl: 0.2 });
    expect((await prompts['@acme/fewer']!({ a: 'x', b: 'y' })).content).toBe('x and y');
    await setup.publish('@acme/fewer', 'v2', '{{a}} alone');
    const updated = nextEvent(events, 'update', '@acme/fewer');
    await sleep(200);
    await prompts['@acme/fewer']!({ a: 'x', b: 'y' });
    await updated;
    expect((await prompts['@acme/fewer']!({ a: 'x', b: 'y' })).content).toBe('x alone');
    // Plain-JS callers still get the generated function's error for a missing variable.
    await expect(prompts['@acme/fewer']!({ a: 'x' })).rejects.toThrow('Prompt "@acme/fewer" is missing variable "b".');
  });
});

describe('placeholders kept as text (README, "Placeholders")', () => {
  it('reads a fetched version as the lockfile read the committed one, and fills only what the function takes', async () => {
    const setup = await setUp(
      [['@acme/range', 'v1', 'From {{start}} to {{end}} {{#each items}}{{this}}{{/each}}']],
      ['@acme/range:latest'],
      {},
      { '@acme/range': { text: ['end'] } },
    );
    const { prompts, events } = live(setup, { ttl: 0.2 });
    // A plain-JS caller passing names the function does not take: they stay as written, as in the module.
    const values = { start: 'Mon', end: 'Fri', '#each items': 'x', this: 'y' };
    const first = await prompts['@acme/range']!(values);
    expect(first.content).toBe('From Mon to {{end}} {{#each items}}{{this}}{{/each}}');
    const committed = setup.module.prompts['@acme/range']!(values);
    expect(first).toEqual({ ...committed, provenance: { ...committed.provenance, source: 'live', reviewedVersion: 'v1' } });
    // {{end}} is still text by the lockfile's reading: no new variable, so v2 is served.
    await setup.publish('@acme/range', 'v2', 'Now {{start}} until {{end}}!');
    const updated = nextEvent(events, 'update', '@acme/range');
    await sleep(200);
    await prompts['@acme/range']!(values);
    await updated;
    expect((await prompts['@acme/range']!(values)).content).toBe('Now Mon until {{end}}!');
  });
});

describe('what is followed', () => {
  it('never follows a pinned version, follows drafts only when asked, and a bare name as latest', async () => {
    const setup = await setUp(
      [
        ['@acme/pinned', 'v1', 'one {{x}}'],
        ['@acme/pinned', 'v2', 'two {{x}}'],
        ['@acme/drafty', 'v1', 'published'],
        ['@acme/drafty', 'draft', 'draft one'],
        ['@acme/bare', 'v1', 'bare one'],
      ],
      ['@acme/pinned:v1', '@acme/drafty:draft', '@acme/bare'],
    );
    const proxy = await countingProxy(setup.server.url);
    cleanup.push(() => proxy.close());
    await setup.publish('@acme/drafty', 'draft', 'draft two');
    await setup.publish('@acme/bare', 'v2', 'bare two');

    const plain = live(setup, { baseUrl: proxy.url });
    expect((await plain.prompts['@acme/pinned']!({ x: '1' })).content).toBe('one 1');
    expect((await plain.prompts['@acme/drafty']!()).content).toBe('draft one');
    expect((await plain.prompts['@acme/bare']!()).content).toBe('bare two');
    const status = plain.prompts.status();
    expect(status.find((s) => s.name === '@acme/pinned')).toMatchObject({ followed: false, selector: 'v1', source: 'snapshot' });
    expect(status.find((s) => s.name === '@acme/pinned')!.reason).toContain('pinned to v1: never followed');
    expect(status.find((s) => s.name === '@acme/drafty')!.reason).toContain('drafts: true');
    expect(status.find((s) => s.name === '@acme/bare')).toMatchObject({ followed: true, selector: null, version: 'v2', source: 'live' });
    expect(proxy.gets.get('@acme/pinned')).toBeUndefined();
    expect(proxy.gets.get('@acme/drafty')).toBeUndefined();

    const withDrafts = live(setup, { baseUrl: proxy.url, drafts: true });
    expect((await withDrafts.prompts['@acme/drafty']!()).content).toBe('draft two');
  });
});

describe('when the service fails', () => {
  it('keeps answering from the last good version, then from the snapshot, without throwing', async () => {
    const setup = await setUp([['@acme/greet', 'v1', 'Hello {{name}}']], ['@acme/greet:latest']);
    await setup.publish('@acme/greet', 'v2', 'Hi {{name}}');
    const store = memoryStore();
    const a = live(setup, { ttl: 0.1, store });
    expect((await a.prompts['@acme/greet']!({ name: 'Ada' })).version).toBe('v2');

    await setup.server.close();
    const fellBack = nextEvent(a.events, 'fallback', '@acme/greet');
    await sleep(100);
    expect((await a.prompts['@acme/greet']!({ name: 'Ada' })).version).toBe('v2');
    expect(((await fellBack) as { reason: string }).reason).toContain('Could not reach the prompt service');
    for (let i = 0; i < 5; i++) {
      expect((await a.prompts['@acme/greet']!({ name: 'Ada' })).content).toBe('Hi Ada');
      await sleep(30);
    }
    expect(a.prompts.status()[0]!.reason).toMatch(/Could not reach the prompt service.*serving v2 \(last good version\)/);

    // A new instance with nothing fetched yet answers from the committed snapshot.
    const b = live(setup, { ttl: 0.1 });
    const answer = await b.prompts['@acme/greet']!({ name: 'Ada' });
    expect(answer).toEqual(setup.module.prompts['@acme/greet']!({ name: 'Ada' }));
    expect(b.prompts.status()[0]).toMatchObject({ version: 'v1', source: 'snapshot' });
    expect(b.prompts.status()[0]!.reason).toContain('committed snapshot');
  });

  it('backs off a 429 until Retry-After, stops when X-RateLimit-Remaining is 0, and keeps to its share of the limit', async () => {
    // Generating the module used the window (2 gets of 2): the first refresh gets a 429.
    const limited = await setUp(
      [
        ['@acme/a', 'v1', 'a'],
        ['@acme/b', 'v1', 'b'],
      ],
      ['@acme/a:latest', '@acme/b:latest'],
      {
        rateLimits: { authenticated: { perMinute: 2 } },
      },
    );
    limited.server.resetStats();
    const { prompts } = live(limited, { ttl: 0.01 });
    for (let i = 0; i < 30; i++) {
      expect((await prompts['@acme/a']!()).content).toBe('a');
      expect((await prompts['@acme/b']!()).content).toBe('b');
      await sleep(5);
    }
    // The 429's Retry-After (tens of seconds) holds every refresh of both prompts.
    expect(limited.server.stats.byStatus).toEqual({ '429': 1 });
    expect(prompts.status().every((s) => /rate limit/.test(s.reason))).toBe(true);

    // 2 gets of 3 used: the next answer says 0 remaining, and nothing is sent until the reset.
    const lastOne = await setUp(
      [
        ['@acme/a', 'v1', 'a'],
        ['@acme/b', 'v1', 'b'],
      ],
      ['@acme/a:latest', '@acme/b:latest'],
      {
        rateLimits: { authenticated: { perMinute: 3 } },
      },
    );
    lastOne.server.resetStats();
    const careful = live(lastOne, { ttl: 0.01 });
    for (let i = 0; i < 30; i++) {
      await careful.prompts['@acme/a']!();
      await careful.prompts['@acme/b']!();
      await sleep(5);
    }
    expect(lastOne.server.stats.byStatus).toEqual({ '200': 1 });

    const budgeted = await setUp([['@acme/a', 'v1', 'a']], ['@acme/a:latest']);
    budgeted.server.resetStats();
    const small = live(budgeted, { ttl: 0.01, rateLimit: 10, budgetShare: 0.2 });
    for (let i = 0; i < 30; i++) {
      await small.prompts['@acme/a']!();
      await sleep(5);
    }
    expect(budgeted.server.stats.byRoute.get).toBe(2);
    expect(small.prompts.status()[0]!.reason).toContain('budget of 2 requests a minute');
  });

  it('answers a first call from the snapshot after timeoutMs when the service is slow', async () => {
    const setup = await setUp([['@acme/slow', 'v1', 'one']], ['@acme/slow:latest'], { latencyMs: 500 });
    await setup.publish('@acme/slow', 'v2', 'two');
    const { prompts } = live(setup, { timeoutMs: 20 });
    expect((await prompts['@acme/slow']!()).content).toBe('one');
    expect(prompts.status()[0]!.reason).toContain('no answer within 20 ms');
  });

  it('refuses a version that echoes the key back, and never shows or shares it', async () => {
    const setup = await setUp([['@acme/echo', 'v1', 'fine {{x}}']], ['@acme/echo:latest']);
    const { prompts, events } = live(setup, { ttl: 0.2 });
    expect((await prompts['@acme/echo']!({ x: '1' })).content).toBe('fine 1');
    await setup.publish('@acme/echo', 'v2', `leaked ${LOCAL_TEST_KEY} {{x}}`);
    await sleep(300);
    await prompts['@acme/echo']!({ x: '1' });
    await sleep(300);
    const answer = await prompts['@acme/echo']!({ x: '1' });
    expect(answer.version).toBe('v1');
    expect(answer.content).not.toContain(LOCAL_TEST_KEY);
    const fallback = events.find((e) => e.type === 'fallback') as { reason: string } | undefined;
    expect(fallback?.reason).toMatch(/refused prompt .*holds the API key/);
    expect(JSON.stringify([events, prompts.status()])).not.toContain(LOCAL_TEST_KEY);
  });

  it('never shows the key, and reports an unusable answer as a fallback', async () => {
    const setup = await setUp([['@acme/a', 'v1', 'a']], ['@acme/a:latest']);
    const key = 'sk_live_ThisKeyIsWrong0000000000000000abcd';
    vi.stubEnv('PROMPTLOCK_API_KEY', key);
    try {
      const { prompts, events } = live(setup);
      expect((await prompts['@acme/a']!()).content).toBe('a');
      const text = JSON.stringify([events, prompts.status()]);
      expect(text).toContain('401');
      expect(text).not.toContain(key);
    } finally {
      vi.stubEnv('PROMPTLOCK_API_KEY', LOCAL_TEST_KEY);
    }
  });
});

describe('setup errors', () => {
  let setup: Setup;
  beforeAll(async () => {
    setup = await setUp([['@acme/a', 'v1', 'a']], ['@acme/a:latest']);
  });
  afterEach(() => {
    delete (globalThis as { window?: unknown }).window;
  });

  it('refuses to run in a browser', () => {
    (globalThis as { window?: unknown }).window = {};
    expect(() => createLivePrompts(setup.module.prompts, { lockfile: setup.module.lockfilePath })).toThrow(PromptlockError);
    expect(() => createLivePrompts(setup.module.prompts, { lockfile: setup.module.lockfilePath })).toThrow(/servers only/);
  });

  it('refuses plain http to another host and a missing lockfile, naming what to do', () => {
    expect(() => createLivePrompts(setup.module.prompts, { baseUrl: 'http://example.com', lockfile: setup.module.lockfilePath })).toThrow(
      /plain http:\/\/ would send the API key unencrypted/,
    );
    expect(() => createLivePrompts(setup.module.prompts, { lockfile: path.join(setup.root, 'nope.json') })).toThrow(ConfigError);
    expect(() => createLivePrompts(setup.module.prompts, { lockfile: path.join(setup.root, 'nope.json') })).toThrow(/lockfile/);
  });

  it('does not follow a prompt the lockfile does not describe as the module has it', async () => {
    const prompts = createLivePrompts(setup.module.prompts, {
      baseUrl: setup.server.url,
      lockfile: { lockfileVersion: 1, prompts: {} },
    });
    cleanup.push(() => prompts.close());
    expect((await prompts['@acme/a']!()).content).toBe('a');
    expect(prompts.status()[0]).toMatchObject({ followed: false });
    expect(prompts.status()[0]!.reason).toContain('the lockfile has no entry for @acme/a');
  });
});
