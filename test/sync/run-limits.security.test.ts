/**
 * Issue 30, item 7: bounds of a whole run, not only of each request or page. A listing's bytes
 * (`limits.listBytes`) and a run's time with the service (`limits.runSeconds`) each have a
 * default, an option and an error naming both; and the diff's time budget has no floor per
 * field, so many large prompts cost the budget once.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/limits.js';
import { diffPrompts } from '../../src/sync/diff-prompts.js';
import { runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { acmePrompt, hostileService, json } from '../helpers/hostile-network.js';

const { project } = disposables();

/** A list that never ends, one full page per request, each padded to `padding` bytes, after `waitMs`. */
function endlessList(padding: number, waitMs: number) {
  return hostileService(async (req, res) => {
    if (!req.url!.startsWith('/v1/prompts?')) return json(res, 404, { error: { code: 'not_found', message: 'no such prompt' } });
    const cursor = new URL(req.url!, 'http://x').searchParams.get('cursor') ?? 'c0';
    const page = Number(cursor.slice(1));
    const prompts = Array.from({ length: 10 }, (_, i) => ({ id: `p${page}_${i}`, title: 't', packageName: `@acme/p-${page}-${i}` }));
    await delay(waitMs);
    const body = JSON.stringify({ prompts, cursor: `c${page + 1}`, hasMore: true });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body + ' '.repeat(Math.max(0, padding - body.length)));
  });
}

const bigPages = endlessList(200_000, 0);
const slowPages = endlessList(0, 250);

describe('run-level limits', () => {
  it('limits.listBytes: a listing of pages each under the page limit stops at the total, naming limit and option', async () => {
    const service = await bigPages();
    const dir = await project({ baseUrl: service.url, prompts: ['@acme/*'], limits: { listBytes: 500_000 } });
    const run = await runCliInProcess(['sync'], { cwd: dir });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      `the limit 500000 (option "limits.listBytes" in the config; default ${DEFAULT_LIMITS.listBytes}); stopped listing.`,
    );
    expect(service.count('/v1/prompts?')).toBe(3);
  });

  it('limits.runSeconds: a service that answers every page just in time cannot hold the run', async () => {
    const service = await slowPages();
    const dir = await project({ baseUrl: service.url, prompts: ['@acme/*'], limits: { runSeconds: 1 } });
    const started = performance.now();
    const run = await runCliInProcess(['sync'], { cwd: dir });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      `This run has spent more than 1 seconds with the service, over the limit of 1 (option "limits.runSeconds" in the config; default ${DEFAULT_LIMITS.runSeconds}); stopped there. Nothing was written.`,
    );
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(DEFAULT_LIMITS.runSeconds).toBe(3_600);
  });
});

describe('the diff budget', () => {
  /** 10,000 lines, every 20th changed between revisions: 1,000 edits, slow for Myers without being refused. */
  const text = (revision: number) =>
    Array.from({ length: 10_000 }, (_, i) => (i % 20 === 0 ? `line ${i} revision ${revision}` : `line ${i}`)).join('\n');

  it('100 changed large prompts cost the budget once (it took 21 s), and a small edit after them is still a diff', () => {
    const before = new Map();
    const after = new Map();
    const [one, two] = [text(1), text(2)];
    for (let i = 0; i < 100; i++) {
      before.set(`@acme/p-${String(i).padStart(3, '0')}`, acmePrompt({ content: one, systemPrompt: one }));
      after.set(`@acme/p-${String(i).padStart(3, '0')}`, acmePrompt({ version: 'v2', content: two, systemPrompt: two }));
    }
    before.set('@acme/z-small', acmePrompt({ content: 'Hello\nworld\nbye' }));
    after.set('@acme/z-small', acmePrompt({ version: 'v2', content: 'Hello\nthere\nbye' }));
    const started = performance.now();
    const diffs = diffPrompts(before, after);
    expect(performance.now() - started).toBeLessThan(6_000);
    // The first few are diffed within the budget; the rest are "text replaced".
    expect(diffs.filter((d) => d.fields.some((f) => f.replaced)).length).toBeGreaterThan(90);
    expect(diffs.find((d) => d.name === '@acme/z-small')!.fields[0]!.lines).toEqual([
      '@@ -1,3 +1,3 @@',
      ' Hello',
      '-world',
      '+there',
      ' bye',
    ]);
  }, 60_000);
});
