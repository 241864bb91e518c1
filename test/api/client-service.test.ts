import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { ServiceError } from '../../src/errors.js';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import type { Prompt } from '../../src/types.js';
import { caught, everythingOf, stable, withService } from './helpers.js';

const GLOBEX_KEY = `sk_test_${'G'.repeat(38)}glbx`;
const WRONG_KEY = `sk_test_${'W'.repeat(38)}0000`;

/** The whole catalogue as a client sees it: the list, then every listed prompt. */
async function fetchEverything(baseUrl: string): Promise<{ names: string[]; prompts: Prompt[] }> {
  const client = createClient({ baseUrl, apiKey: LOCAL_TEST_KEY, backoffBaseMs: 5 });
  try {
    const list = await client.listAll({ pageSize: 5 });
    const names = list.map((item) => item.packageName).sort();
    const prompts = await Promise.all(names.map((name) => client.getPrompt(name)));
    return { names, prompts: prompts.map(stable) };
  } finally {
    await client.close();
  }
}

describe('against the local service, both envelopes × both error shapes', () => {
  const combos = [
    ['bare', 'flat'],
    ['bare', 'nested'],
    ['wrapped', 'flat'],
    ['wrapped', 'nested'],
  ] as const;

  let reference: { names: string[]; prompts: Prompt[] } | undefined;

  it.each(combos)('%s answers, %s errors: same data, same messages', async (envelope, errors) => {
    await withService({ envelope, errors, keys: [{ key: LOCAL_TEST_KEY }, { key: GLOBEX_KEY, workspace: 'globex' }] }, async (server) => {
      const everything = await fetchEverything(server.url);
      expect(everything.names.length).toBeGreaterThanOrEqual(12);
      reference ??= everything;
      expect(everything).toEqual(reference);
      const onePrompt = everything.prompts.find((p) => p.packageName.startsWith('@acme/support-reply'))!;
      expect(onePrompt.context.length).toBeGreaterThan(0);

      const wrongKey = createClient({ baseUrl: server.url, apiKey: WRONG_KEY, retries: 0 });
      const noKey = createClient({ baseUrl: server.url, retries: 0 });
      const scoped = createClient({ baseUrl: server.url, apiKey: GLOBEX_KEY, retries: 0 });
      const good = createClient({ baseUrl: server.url, apiKey: LOCAL_TEST_KEY, retries: 0 });
      try {
        const e401 = await caught(wrongKey.getPrompt('@acme/welcome'));
        expect(e401).toBeInstanceOf(ServiceError);
        expect(e401).toMatchObject({ status: 401, code: 'unauthorized' });
        expect(e401.message).toBe(`The service rejected the API key sk_test…0000 (401 unauthorized) at ${server.url}.`);
        expect(e401.hint).toBe('Set PROMPTLOCK_API_KEY to a valid key.');
        expect(everythingOf(e401)).not.toContain(WRONG_KEY);

        const e401none = await caught(noKey.listAll());
        expect(e401none.message).toBe(`The service needs an API key (401 unauthorized) at ${server.url}, and none is set.`);
        expect(e401none.hint).toBe('Set PROMPTLOCK_API_KEY (or BAYT_API_KEY) to your API key.');

        const e403 = await caught(scoped.getPrompt('@acme/welcome'));
        expect(e403).toMatchObject({ status: 403, code: 'forbidden' });
        expect(e403.message).toBe(
          'The API key sk_test…glbx has no access to workspace "acme" (403 forbidden) while fetching @acme/welcome.',
        );
        expect(everythingOf(e403)).not.toContain(GLOBEX_KEY);

        const e404 = await caught(good.getPrompt('@acme/no-such-prompt'));
        expect(e404).toMatchObject({ status: 404, code: 'not_found' });
        expect(e404.message).toBe(`Prompt @acme/no-such-prompt was not found (404) at ${server.url}.`);

        const e404v = await caught(good.getPrompt('@acme/welcome:v99'));
        expect(e404v.message).toContain('@acme/welcome:v99');
        expect(everythingOf(e404v)).not.toContain(LOCAL_TEST_KEY);
      } finally {
        await Promise.all([wrongKey.close(), noKey.close(), scoped.close(), good.close()]);
      }
    });
  });
});

describe('endpoints', () => {
  it('substitutes variables, reports health, and downloads a context file without the key', async () => {
    await withService({}, async (server) => {
      const client = createClient({ baseUrl: `${server.url}/`, apiKey: LOCAL_TEST_KEY });
      try {
        const prompt = await client.getPrompt('@acme/support-reply', { customer_name: 'Ada', count: '3', topic: 'refunds' });
        expect(prompt.content).toContain('Hello Ada,');
        expect(await client.health()).toMatchObject({ status: 'ok' });
        const file = prompt.context.find((item) => item.type === 'file')!;
        const download = await client.getContextDownloadUrl(file.id);
        const bytes = await client.downloadFile(download.url, { maxBytes: 1_000_000, expectedSize: file.fileSize ?? undefined });
        expect(bytes.length).toBe(file.fileSize);
        const tooSmall = await caught(client.downloadFile(download.url, { maxBytes: 10 }));
        expect(tooSmall).toMatchObject({ code: 'too_large' });
        expect(tooSmall.message).not.toContain('signature=');
        const e404 = await caught(client.getContextDownloadUrl('ctx_nope'));
        expect(e404.message).toBe(`Context file ctx_nope was not found (404) at ${server.url}.`);
      } finally {
        await client.close();
      }
    });
  });

  it('reports a 429 whose Retry-After is beyond maxRetryAfterMs, and pacing past its window', async () => {
    await withService({ rateLimits: { authenticated: { perMinute: 2 }, minuteMs: 60_000 } }, async (server) => {
      const first = createClient({ baseUrl: server.url, apiKey: LOCAL_TEST_KEY, maxRetryAfterMs: 1000 });
      const second = createClient({ baseUrl: server.url, apiKey: LOCAL_TEST_KEY, maxRetryAfterMs: 1000 });
      try {
        await first.getPrompt('@acme/welcome');
        await first.getPrompt('@acme/welcome');
        // `first` knows the window is used up and does not even ask.
        const paced = await caught(first.getPrompt('@acme/summarize'));
        expect(paced).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
        // The window's rest, in whole seconds (a loaded machine may take a few of them to get here).
        const rest =
          /^The service's rate limit is used up for another (\d+) s while fetching @acme\/summarize; promptlock waits at most 1 s\.$/.exec(
            paced.message,
          );
        expect(Number(rest?.[1]), paced.message).toBeGreaterThanOrEqual(45);
        expect(Number(rest?.[1]), paced.message).toBeLessThanOrEqual(61);
        expect(server.stats.byStatus['429']).toBeUndefined();
        // `second` has no reading yet: its probe gets the 429.
        const limited = await caught(second.getPrompt('@acme/summarize'));
        expect(limited).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
        const asked =
          /^The service answered 429 \(rate limit exceeded\) and asks to wait (\d+) s while fetching @acme\/summarize; promptlock waits at most 1 s\.$/.exec(
            limited.message,
          );
        expect(Number(asked?.[1]), limited.message).toBeGreaterThanOrEqual(45);
        expect(Number(asked?.[1]), limited.message).toBeLessThanOrEqual(61);
        expect(second.stats.status429).toBe(1);
        expect(everythingOf(limited)).not.toContain(LOCAL_TEST_KEY);
      } finally {
        await Promise.all([first.close(), second.close()]);
      }
    });
  });

  it('waits out a short Retry-After and then succeeds', async () => {
    await withService({ rateLimits: { authenticated: { perMinute: 2 }, minuteMs: 2500 } }, async (server) => {
      const first = createClient({ baseUrl: server.url, apiKey: LOCAL_TEST_KEY });
      const second = createClient({ baseUrl: server.url, apiKey: LOCAL_TEST_KEY });
      const events: string[] = [];
      const third = createClient({ baseUrl: server.url, apiKey: LOCAL_TEST_KEY, onEvent: (e) => events.push(e.type) });
      try {
        await first.getPrompt('@acme/welcome');
        await second.getPrompt('@acme/welcome');
        const prompt = await third.getPrompt('@acme/welcome');
        expect(prompt.packageName).toMatch(/^@acme\/welcome/);
        expect(third.stats).toMatchObject({ status429: 1, retries: 1 });
        expect(third.stats.waitedMs).toBeGreaterThan(0);
        expect(events).toEqual(expect.arrayContaining(['429', 'retry', 'rate-limit-wait']));
      } finally {
        await Promise.all([first.close(), second.close(), third.close()]);
      }
    });
  });
});
