import { describe, expect, it } from 'vitest';
import { backoffDelay, retryAfterMs } from '../../src/api/backoff.js';
import { ConcurrencyLimiter } from '../../src/api/concurrency-limiter.js';
import { createClient } from '../../src/api/index.js';
import { RateLimitPacer, RESET_MARGIN_MS, readRateLimit } from '../../src/api/rate-limit-pacer.js';
import { ConfigError } from '../../src/errors.js';

describe('backoffDelay', () => {
  const table: [string, { attempt: number; random: number }, number][] = [
    ['first retry, top of the jitter', { attempt: 1, random: 0.999 }, 249],
    ['doubles per attempt', { attempt: 3, random: 0.5 }, 500],
    ['capped', { attempt: 12, random: 0.999 }, 7992],
    ['full jitter reaches zero', { attempt: 4, random: 0 }, 0],
  ];
  it.each(table)('%s', (_name, given, want) => {
    expect(backoffDelay(given.attempt, 250, 8000, () => given.random)).toBe(want);
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const table: [string, [string | undefined, number | undefined], number | undefined][] = [
    ['header seconds', ['7', 3], 7000],
    ['header fraction', ['0.5', undefined], 500],
    ['header HTTP date', ['Thu, 01 Jan 2026 00:00:03 GMT', undefined], 3000],
    ['body when no header', [undefined, 4], 4000],
    ['body when header is junk', ['soon', 2], 2000],
    ['neither', [undefined, undefined], undefined],
  ];
  it.each(table)('%s', (_name, [header, body], want) => {
    expect(retryAfterMs(header, body, now)).toBe(want);
  });
});

describe('readRateLimit', () => {
  it('reads remaining and a Unix-seconds reset', () => {
    expect(readRateLimit({ 'x-ratelimit-remaining': '4', 'x-ratelimit-reset': '1767225600' }, 1767225599000)).toEqual({
      remaining: 4,
      resetAtMs: 1767225600000,
    });
  });
  it('is undefined without the headers', () => {
    expect(readRateLimit({ 'content-type': 'application/json' }, 0)).toBeUndefined();
  });
  it('corrects a service clock that is far off', () => {
    const now = 1_767_225_600_000;
    const reading = readRateLimit(
      { 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': String(now / 1000 + 60 + 3600), date: new Date(now + 3_600_000).toUTCString() },
      now,
    );
    expect(reading?.resetAtMs).toBe(now + 60_000);
  });
});

describe('RateLimitPacer', () => {
  const t0 = 1_000_000;
  it('sends one probe first, then as many as the reading allows, counting those in flight', () => {
    const pacer = new RateLimitPacer();
    expect(pacer.plan(t0)).toEqual({ kind: 'go' });
    pacer.start();
    expect(pacer.plan(t0)).toEqual({ kind: 'wait-for-answer' });
    pacer.finish({ remaining: 3, resetAtMs: t0 + 2000 }, true, t0);
    const started: string[] = [];
    for (let i = 0; i < 5; i++) {
      const plan = pacer.plan(t0 + 10);
      started.push(plan.kind);
      if (plan.kind === 'go') pacer.start();
    }
    expect(started).toEqual(['go', 'go', 'go', 'wait', 'wait']);
    expect(pacer.plan(t0 + 10)).toEqual({ kind: 'wait', ms: 2000 - 10 + RESET_MARGIN_MS });
  });

  it('counts requests in flight when a reading arrives against its remaining', () => {
    const pacer = new RateLimitPacer();
    pacer.start();
    pacer.finish({ remaining: 10, resetAtMs: t0 + 2000 }, true, t0);
    for (let i = 0; i < 6; i++) pacer.start();
    // One of the six answers: 5 remain by the service's count, and 5 are still in flight,
    // which the service may not have counted yet: nothing more may start.
    pacer.finish({ remaining: 5, resetAtMs: t0 + 2000 }, true, t0);
    expect(pacer.plan(t0).kind).toBe('wait');
    // A reading of the next window lets requests go again.
    pacer.finish({ remaining: 10, resetAtMs: t0 + 4000 }, true, t0);
    expect(pacer.plan(t0)).toEqual({ kind: 'go' });
  });

  it('ignores a late, more generous answer of the same window', () => {
    const pacer = new RateLimitPacer();
    pacer.start();
    pacer.finish({ remaining: 2, resetAtMs: t0 + 2000 }, true, t0);
    pacer.start();
    pacer.start();
    pacer.finish({ remaining: 0, resetAtMs: t0 + 2000 }, true, t0);
    pacer.finish({ remaining: 1, resetAtMs: t0 + 2000 }, true, t0); // older answer, arrived last
    expect(pacer.plan(t0).kind).toBe('wait');
  });

  it('after the reset, probes once, and waits again briefly if the window was not over', () => {
    const pacer = new RateLimitPacer();
    pacer.start();
    pacer.finish({ remaining: 0, resetAtMs: t0 + 1000 }, true, t0);
    expect(pacer.plan(t0 + 1000 + RESET_MARGIN_MS)).toEqual({ kind: 'go' });
    pacer.start();
    expect(pacer.plan(t0 + 1000 + RESET_MARGIN_MS)).toEqual({ kind: 'wait-for-answer' });
    // The probe's answer still shows the old window used up.
    pacer.finish({ remaining: 0, resetAtMs: t0 + 1000 }, true, t0 + 1060);
    const plan = pacer.plan(t0 + 1060);
    expect(plan.kind).toBe('wait');
    expect((plan as { ms: number }).ms).toBeGreaterThan(500);
    expect((plan as { ms: number }).ms).toBeLessThanOrEqual(1000 + RESET_MARGIN_MS);
  });

  it('stops pacing a service that sends no rate-limit headers', () => {
    const pacer = new RateLimitPacer();
    pacer.start();
    pacer.finish(undefined, true, t0);
    for (let i = 0; i < 50; i++) {
      expect(pacer.plan(t0).kind).toBe('go');
      pacer.start();
    }
  });

  it('holds everything while a 429 Retry-After runs', () => {
    const pacer = new RateLimitPacer();
    pacer.block(t0 + 3000);
    expect(pacer.plan(t0)).toEqual({ kind: 'wait', ms: 3000 });
  });
});

describe('ConcurrencyLimiter', () => {
  it('never runs more than max tasks at once, first come first served', async () => {
    const limiter = new ConcurrencyLimiter(3);
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        limiter.run(async () => {
          active++;
          peak = Math.max(peak, active);
          order.push(i);
          await new Promise((resolve) => setImmediate(resolve));
          active--;
        }),
      ),
    );
    expect(peak).toBe(3);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });
});

describe('createClient', () => {
  const key = `sk_live_${'Z'.repeat(38)}abcd`;
  it.each(['http://api.example.com', 'http://10.1.2.3:4010', 'ftp://127.0.0.1'])('refuses %s', (baseUrl) => {
    let error: unknown;
    try {
      createClient({ baseUrl, apiKey: key });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^Refusing the prompt service address/);
    expect((error as Error).message).toContain('sk_live…abcd');
    expect((error as Error).message).not.toContain(key);
  });
  it.each(['http://127.0.0.1:1', 'http://localhost:1', 'http://[::1]:1', 'https://api.example.com'])('accepts %s', async (baseUrl) => {
    const client = createClient({ baseUrl, apiKey: key });
    await client.close();
  });
});
