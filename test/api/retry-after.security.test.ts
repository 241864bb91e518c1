/**
 * Finding 16: `Retry-After: -5` or a date already past is no answer; the client waits its own
 * backoff instead of retrying at once. Checked on the computed delay, never on the clock.
 */
import { describe, expect, it } from 'vitest';
import { backoffDelay, rateLimitedWait, retryAfterMs } from '../../src/api/backoff.js';
import { type ClientEvent, createClient } from '../../src/api/index.js';
import { ACME_NAME, acmePrompt, hostileService, json } from '../helpers/hostile-network.js';

const now = Date.parse('2026-01-01T00:00:00Z');
const half = () => 0.5;

describe('the wait after a 429', () => {
  it.each([
    ['-5', undefined],
    ['-0.5', undefined],
    ['Wed, 31 Dec 2025 23:59:55 GMT', undefined],
    ['Thu, 01 Jan 2026 00:00:00 GMT', undefined],
    ['1e9', undefined],
    ['soon', undefined],
  ])('Retry-After %s falls back to the backoff', (header, body) => {
    expect(retryAfterMs(header, body, now)).toBeUndefined();
    for (const limited of [1, 2, 3, 4, 5]) {
      expect(rateLimitedWait(header, body, limited, now, half)).toEqual({ ms: backoffDelay(limited, 1000, 8000, half), from: 'backoff' });
    }
  });

  it("a past or negative header with a usable body: the body's retry_after applies", () => {
    expect(rateLimitedWait('-5', 3, 1, now, half)).toEqual({ ms: 3000, from: 'body' });
    expect(rateLimitedWait('Wed, 31 Dec 2025 23:59:55 GMT', 2, 1, now, half)).toEqual({ ms: 2000, from: 'body' });
  });

  it('valid answers still apply: seconds, a future date, zero', () => {
    expect(rateLimitedWait('7', 3, 1, now, half)).toEqual({ ms: 7000, from: 'header' });
    expect(rateLimitedWait('Thu, 01 Jan 2026 00:00:03 GMT', undefined, 1, now, half)).toEqual({ ms: 3000, from: 'header' });
    expect(rateLimitedWait('0', undefined, 1, now, half)).toEqual({ ms: 0, from: 'header' });
  });
});

describe('a service answering Retry-After: -5', () => {
  let calls = 0;
  const service = hostileService((req, res) => {
    if (req.url === '/v1/prompts/get' && ++calls <= 2) {
      const retryAfter = calls === 1 ? '-5' : new Date(Date.now() - 60_000).toUTCString();
      json(res, 429, { error: { code: 'rate_limit_exceeded', message: 'slow down' } }, { 'retry-after': retryAfter });
    } else {
      json(res, 200, acmePrompt());
    }
  });

  it('is waited out with the backoff, not retried at once', async () => {
    const { url, count } = await service();
    const events: ClientEvent[] = [];
    const client = createClient({ baseUrl: url, onEvent: (e) => events.push(e) });
    try {
      expect((await client.getPrompt(ACME_NAME)).id).toBe(acmePrompt().id);
      const waits = events.filter((e) => e.type === '429');
      expect(waits.map((e) => e.from)).toEqual(['backoff', 'backoff']);
      // The backoff after the n-th 429 in a row: at most 1 s, then 2 s.
      expect(waits[0]!.retryAfterMs).toBeLessThan(1000);
      expect(waits[1]!.retryAfterMs).toBeLessThan(2000);
      expect(count('/v1/prompts/get')).toBe(3);
    } finally {
      await client.close();
    }
  });
});
