/** Injected faults for the client's reliability tests: repeatable with a seed, only on API paths. */
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { call, serverPool } from './helpers.js';

const pool = serverPool();
afterAll(() => pool.closeAll());

/** Status of each of `count` sequential requests, or the fetch failure ('failed'). */
async function outcomes(server: RunningServer, count: number): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < count; i++) {
    try {
      const response = await fetch(`${server.url}/v1/health`);
      await response.text();
      seen.push(String(response.status));
    } catch {
      seen.push('failed');
    }
  }
  return seen;
}

describe('faults', () => {
  it('fail the same requests for the same seed, with every kind', async () => {
    const options = { faults: { rate: 0.5, seed: 42 } };
    const [a, b] = [await pool.start(options), await pool.start(options)];
    const first = await outcomes(a, 30);
    expect(await outcomes(b, 30)).toEqual(first);
    expect(first).toContain('200');
    expect(first).toContain('503');
    expect(first).toContain('failed');
    const stats = a.stats.byStatus;
    expect((stats.reset ?? 0) + (stats.truncate ?? 0)).toBe(first.filter((o) => o === 'failed').length);
    expect(stats.reset).toBeGreaterThan(0);
    expect(stats.truncate).toBeGreaterThan(0);
  });

  it('503 answers an error body in the chosen shape; file downloads and nothing else are spared', async () => {
    const server = await pool.start({ faults: { rate: 1, kinds: ['503'] } });
    const answer = await call(server, '/v1/prompts');
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({
      error: { code: 'internal_error', message: 'Service temporarily unavailable (injected fault); retry shortly.' },
    });
    expect(answer.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect((await call(server, '/files/ctx_x?expires=1&signature=x', { key: null })).status).toBe(403);
  });

  it('rate 0 or no faults option injects nothing', async () => {
    const server = await pool.start({ faults: { rate: 0 } });
    expect(await outcomes(server, 5)).toEqual(Array(5).fill('200'));
  });
});
