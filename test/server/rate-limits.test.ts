/** Exact rate-limit arithmetic and headers, with small limits and short windows (no timing assertions). */
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningServer, ServerOptions } from '../../src/server/index.js';
import { createRateLimiter } from '../../src/server/rate-limiter.js';
import { call, eventually, getPrompt, KEY, serverPool } from './helpers.js';

const pool = serverPool();
afterAll(() => pool.closeAll());

const start = (rateLimits: ServerOptions['rateLimits'], extra: Partial<ServerOptions> = {}) => pool.start({ rateLimits, ...extra });

function limitHeaders(answer: { headers: Headers }) {
  return {
    limit: Number(answer.headers.get('x-ratelimit-limit')),
    remaining: Number(answer.headers.get('x-ratelimit-remaining')),
    reset: Number(answer.headers.get('x-ratelimit-reset')),
  };
}

describe('rate limiter arithmetic (unit, explicit clock)', () => {
  const limiter = () => createRateLimiter({ minuteMs: 1_000, hourMs: 10_000 });
  const cases: Array<[string, { perMinute: number; perHour: number; steps: Array<[number, boolean, number, number]> }]> = [
    // [time, allowed, limit reported, remaining reported]
    [
      'the minute window binds first',
      {
        perMinute: 2,
        perHour: 5,
        steps: [
          [0, true, 2, 1],
          [10, true, 2, 0],
          [20, false, 2, 0],
          [1000, true, 2, 1],
          [1001, true, 2, 0],
          [1002, false, 2, 0],
        ],
      },
    ],
    [
      'the hour window binds when it has fewer left',
      {
        perMinute: 3,
        perHour: 4,
        steps: [
          [0, true, 3, 2],
          [1, true, 3, 1],
          [1000, true, 4, 1],
          [1001, true, 4, 0],
          [2000, false, 4, 0],
          [10_000, true, 3, 2],
        ],
      },
    ],
    [
      'a limit of zero refuses everything',
      {
        perMinute: 0,
        perHour: 10,
        steps: [
          [0, false, 0, 0],
          [5000, false, 0, 0],
        ],
      },
    ],
  ];
  it.each(cases)('%s', (_name, { perMinute, perHour, steps }) => {
    const rl = limiter();
    for (const [now, allowed, limit, remaining] of steps) {
      const decision = rl.take('caller', { perMinute, perHour }, now);
      expect({ now, allowed: decision.allowed, limit: decision.limit, remaining: decision.remaining }).toEqual({
        now,
        allowed,
        limit,
        remaining,
      });
    }
  });

  it('reports the reset of the window it describes, and refused requests use nothing', () => {
    const rl = limiter();
    expect(rl.take('a', { perMinute: 1, perHour: 9 }, 100)).toMatchObject({ allowed: true, window: 'minute', resetAt: 1100 });
    expect(rl.take('a', { perMinute: 1, perHour: 9 }, 200)).toMatchObject({ allowed: false, window: 'minute', resetAt: 1100 });
    expect(rl.peek('a', { perMinute: 1, perHour: 9 }, 300)).toMatchObject({ remaining: 0 });
    expect(rl.take('a', { perMinute: 1, perHour: 9 }, 1100)).toMatchObject({ allowed: true, remaining: 0 });
    // Callers are independent.
    expect(rl.take('b', { perMinute: 1, perHour: 9 }, 200)).toMatchObject({ allowed: true });
  });
});

describe('over HTTP', () => {
  it('counts down per key, then answers 429 with Retry-After, retry_after and Remaining 0', async () => {
    const server = await start({ authenticated: { perMinute: 3, perHour: 100 } });
    // The window starts with the first request: its reset lies 60 s after a moment between these two.
    const before = Math.floor(Date.now() / 1000);
    const seen = [limitHeaders(await getPrompt(server, '@acme/welcome'))];
    const afterFirst = Math.ceil(Date.now() / 1000);
    for (let i = 1; i < 3; i++) seen.push(limitHeaders(await getPrompt(server, '@acme/welcome')));
    expect(seen.map((h) => [h.limit, h.remaining])).toEqual([
      [3, 2],
      [3, 1],
      [3, 0],
    ]);
    const refused = await getPrompt(server, '@acme/welcome');
    expect(refused.status).toBe(429);
    const headers = limitHeaders(refused);
    expect([headers.limit, headers.remaining]).toEqual([3, 0]);
    expect(headers.reset).toBeGreaterThanOrEqual(before + 60);
    expect(headers.reset).toBeLessThanOrEqual(afterFirst + 60);
    expect(headers.reset).toBe(seen[0]!.reset);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.body).toEqual({
      error: {
        code: 'rate_limit_exceeded',
        message: `Rate limit exceeded: 3 requests per minute for authenticated callers; retry after ${retryAfter} s.`,
        details: { limit: 3, window: 'minute' },
        retry_after: retryAfter,
      },
    });
  });

  it('uses the flat shape when asked, with retry_after in the body', async () => {
    const server = await start({ unauthenticated: { perMinute: 1, perHour: 100 } }, { errors: 'flat' });
    expect((await call(server, '/v1/health', { key: null })).status).toBe(200);
    const refused = await call(server, '/v1/health', { key: null });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: `Rate limit exceeded: 1 requests per minute for unauthenticated callers; retry after ${refused.headers.get('retry-after')} s.`,
      retry_after: Number(refused.headers.get('retry-after')),
    });
  });

  it('reports the hour window when it has fewer left, and keeps refusing after the minute resets', async () => {
    const server = await start({ authenticated: { perMinute: 2, perHour: 3 }, minuteMs: 300 });
    const first = limitHeaders(await call(server, '/v1/prompts'));
    expect([first.limit, first.remaining]).toEqual([2, 1]); // minute 1 left vs hour 2 left
    const second = limitHeaders(await call(server, '/v1/prompts'));
    expect([second.limit, second.remaining]).toEqual([2, 0]); // tie at 0 would report the later reset; here minute 0 < hour 1
    expect((await call(server, '/v1/prompts')).status).toBe(429);
    // Wait (by polling) until the short minute window has passed.
    let third: Awaited<ReturnType<typeof call>> | undefined;
    await eventually(async () => {
      third = await call(server, '/v1/prompts');
      return third.status === 200;
    });
    expect([limitHeaders(third!).limit, limitHeaders(third!).remaining]).toEqual([3, 0]);
    const refused = await call(server, '/v1/prompts');
    expect(refused.status).toBe(429);
    expect(limitHeaders(refused).limit).toBe(3);
    expect(refused.body.error.details).toEqual({ limit: 3, window: 'hour' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(60);
  });

  it('counts callers without a valid key by address, on the unauthenticated tier', async () => {
    const server = await start({ authenticated: { perMinute: 5, perHour: 50 }, unauthenticated: { perMinute: 2, perHour: 20 } });
    const noKey = await call(server, '/v1/health', { key: null });
    expect(limitHeaders(noKey)).toMatchObject({ limit: 2, remaining: 1 });
    const badKey = await call(server, '/v1/prompts', { key: 'sk_test_not_a_real_key' });
    expect(badKey.status).toBe(401);
    expect(limitHeaders(badKey)).toMatchObject({ limit: 2, remaining: 0 });
    // The tier is exhausted: 429 comes before the 401 a wrong key would get.
    const refused = await call(server, '/v1/prompts', { key: 'sk_test_not_a_real_key' });
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toContain('unauthenticated');
    // A valid key from the same address has its own budget.
    expect(limitHeaders(await call(server, '/v1/health', { key: KEY }))).toMatchObject({ limit: 5, remaining: 4 });
  });

  it('uses the service defaults: 1,000/min with a key, 100/min without', async () => {
    const server: RunningServer = await pool.start();
    expect(limitHeaders(await call(server, '/v1/prompts'))).toMatchObject({ limit: 1000, remaining: 999 });
    expect(limitHeaders(await call(server, '/v1/health', { key: null }))).toMatchObject({ limit: 100, remaining: 99 });
  });

  it('gives each key its own budget and scopes nothing by address', async () => {
    const other = 'sk_test_SecondKey000000000000000000000000000000000';
    const server = await start({ authenticated: { perMinute: 1, perHour: 10 } }, { keys: [{ key: KEY }, { key: other }] });
    expect((await call(server, '/v1/prompts')).status).toBe(200);
    expect((await call(server, '/v1/prompts')).status).toBe(429);
    expect((await call(server, '/v1/prompts', { key: other })).status).toBe(200);
  });
});
