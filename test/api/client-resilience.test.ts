import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { type FaultKind, LOCAL_TEST_KEY } from '../../src/server/index.js';
import type { Prompt, PromptSummary } from '../../src/types.js';
import { caught, everythingOf, stable, withService } from './helpers.js';

interface Snapshot {
  list: PromptSummary[];
  prompts: Prompt[];
}

/** What a sync needs from the service: the full list, and every prompt (twice, to make volume). */
async function syncLike(baseUrl: string, options: { concurrency?: number } = {}): Promise<Snapshot & { stats: object }> {
  const client = createClient({ baseUrl, apiKey: LOCAL_TEST_KEY, backoffBaseMs: 5, concurrency: options.concurrency ?? 8 });
  try {
    const list = await client.listAll({ pageSize: 4 });
    const names = list.map((item) => item.packageName);
    const prompts = await Promise.all([...names, ...names].map((name) => client.getPrompt(name)));
    return { list, prompts: prompts.map(stable), stats: { ...client.stats } };
  } finally {
    await client.close();
  }
}

describe('with 20% of requests failing, the result equals a clean run', () => {
  let clean: Snapshot | undefined;
  const cases: [string, FaultKind[]][] = [
    ['503', ['503']],
    ['reset', ['reset']],
    ['truncated body', ['truncate']],
    ['all three mixed', ['503', 'reset', 'truncate']],
  ];

  it.each(cases)('%s', async (_name, kinds) => {
    clean ??= await withService({}, async (server) => {
      const { list, prompts } = await syncLike(server.url);
      return { list, prompts };
    });
    await withService({ faults: { rate: 0.2, seed: 7, kinds } }, async (server) => {
      const run = await syncLike(server.url);
      expect({ list: run.list, prompts: run.prompts }).toEqual(clean);
      // The faults really happened, and each cost a retry.
      const injected = kinds.reduce((sum, kind) => sum + (server.stats.byStatus[kind] ?? 0), 0);
      expect(injected).toBeGreaterThan(0);
      expect((run.stats as { retries: number }).retries).toBeGreaterThanOrEqual(injected);
    });
  });
});

describe('pacing by X-RateLimit-*', () => {
  // 70 requests: more than two windows' worth, so the pacer must wait for a reset twice.
  it('syncs 70 requests through a 30-per-second window with zero 429s', async () => {
    await withService({ rateLimits: { authenticated: { perMinute: 30 }, minuteMs: 1000 } }, async (server) => {
      const client = createClient({ baseUrl: server.url, apiKey: LOCAL_TEST_KEY, concurrency: 16 });
      try {
        const list = await client.listAll();
        const names = list.map((item) => item.packageName);
        const requests = Array.from({ length: 69 }, (_, i) => names[i % names.length]!);
        const prompts = await Promise.all(requests.map((name) => client.getPrompt(name)));
        expect(prompts).toHaveLength(69);
        expect(server.stats.byStatus['429']).toBeUndefined();
        expect(server.stats.byStatus['200']).toBe(70);
        expect(client.stats).toMatchObject({ requests: 70, status429: 0, retries: 0 });
        expect(client.stats.waitedMs).toBeGreaterThan(0);
      } finally {
        await client.close();
      }
    });
  });
});

describe('timeouts', () => {
  it('retries a request that times out, then fails clearly', async () => {
    await withService({ latencyMs: 400 }, async (server) => {
      const retries: string[] = [];
      const client = createClient({
        baseUrl: server.url,
        apiKey: LOCAL_TEST_KEY,
        timeoutMs: 100,
        retries: 2,
        backoffBaseMs: 5,
        onEvent: (event) => {
          if (event.type === 'retry') retries.push(event.reason);
        },
      });
      try {
        const error = await caught(client.getPrompt('@acme/welcome'));
        expect(error).toMatchObject({ code: 'timeout' });
        expect(error.message).toBe(
          `The prompt service at ${server.url} did not answer within 100 ms while fetching @acme/welcome (3 attempts).`,
        );
        expect(retries).toEqual(['timeout', 'timeout']);
        expect(client.stats.requests).toBe(3);
        expect(everythingOf(error)).not.toContain(LOCAL_TEST_KEY);
      } finally {
        await client.close();
      }
    });
  });
});

describe('server errors', () => {
  it('retries a 5xx, then says what failed, never showing the key in messages or events', async () => {
    await withService({ faults: { rate: 1, kinds: ['503'] } }, async (server) => {
      const events: string[] = [];
      const client = createClient({
        baseUrl: server.url,
        apiKey: LOCAL_TEST_KEY,
        retries: 2,
        backoffBaseMs: 1,
        onEvent: (event) => events.push(JSON.stringify(event)),
      });
      try {
        const error = await caught(client.getPrompt('@acme/welcome'));
        expect(error).toMatchObject({ status: 503, code: 'internal_error' });
        expect(error.message).toMatch(
          /^The service failed with 503 internal_error while fetching @acme\/welcome, 3 attempts: [\s\S]*[^.]\.$/,
        );
        expect(server.stats.byStatus['503']).toBe(3);
        expect(events.filter((e) => e.includes('"retry"'))).toHaveLength(2);
        expect(everythingOf(error) + events.join('\n')).not.toContain(LOCAL_TEST_KEY);
      } finally {
        await client.close();
      }
    });
  });
});
