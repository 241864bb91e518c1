/**
 * Issue 28, build items 7 and 8: globs are symmetric (`@ws/*:draft` skips a package without a
 * draft with one line, as `@ws/*` skips a draft-only one); list items that name one prompt with
 * different ids get one warning; and a sync whose list names no versions says why it fetched
 * every prompt.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { wireProxy } from '../helpers/wire-proxy.js';

const { serve, project, folder } = disposables();
const KEY = `sk_live_${'ListAnswersKey'.padEnd(38, 'l')}wxyz`;

let dir: string;
beforeAll(async () => {
  dir = await folder({
    'acme/published/v1.md': 'Published, {{name}}.',
    'acme/both/v1.md': 'Both, published.',
    'acme/both/draft.md': 'Both, draft.',
    'acme/drafty/draft.md': 'Only a draft.',
  });
});

const sync = (cwd: string, args: string[] = []) =>
  runCliInProcess(['sync', ...args], { cwd, env: { PROMPTLOCK_API_KEY: KEY }, timeoutMs: 30_000 });

describe('globs skip what has no version at their selector, one line each', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve({ dir, keys: [{ key: KEY }] });
  });

  it('@acme/*:draft skips a package without a draft', async () => {
    const cwd = await project({ baseUrl: server.url, prompts: ['@acme/*:draft'] });
    const run = await sync(cwd);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split('\n').filter((line) => line.startsWith('skipped '))).toEqual(['skipped @acme/published: no draft']);
    expect(run.stderr).toMatch(/Synced 2 prompts/);
  });

  it('@acme/* skips a package with only a draft, saying how to follow it', async () => {
    const cwd = await project({ baseUrl: server.url, prompts: ['@acme/*'] });
    const run = await sync(cwd);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split('\n').filter((line) => line.startsWith('skipped '))).toEqual([
      'skipped @acme/drafty: no published version yet; add "@acme/drafty:draft" to follow its draft',
    ]);
  });

  it('an exact @acme/published:draft still fails: the config asked for it by name', async () => {
    const cwd = await project({ baseUrl: server.url, prompts: ['@acme/published:draft'] });
    const run = await sync(cwd);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('@acme/published exists, but has no draft on the service (404).');
  });
});

describe('list items that disagree', () => {
  it('one prompt named by two items with different ids: one warning, synced once', async () => {
    const server = await serve({ dir, keys: [{ key: KEY }] });
    const proxy = await wireProxy(server.url, {
      change: (request) =>
        request.method === 'GET' && request.url.startsWith('/v1/prompts?')
          ? {
              json: (body) => {
                const page = body as { prompts: Array<{ id: string; packageName: string }> };
                const copies = page.prompts
                  .filter((item) => item.packageName !== '@acme/drafty')
                  .map((item) => ({ ...item, id: `${item.id}_copy` }));
                return { ...page, prompts: [...page.prompts, ...copies] };
              },
            }
          : undefined,
    });
    const cwd = await project({ baseUrl: proxy.url, prompts: ['@acme/*'] });
    const run = await runCliInProcess(['sync', '--json'], { cwd, env: { PROMPTLOCK_API_KEY: KEY } });
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as { warnings: string[]; prompts: number };
    expect(summary.prompts).toBe(2);
    expect(summary.warnings).toHaveLength(1);
    expect(summary.warnings[0]).toMatch(
      /^The service's list names 2 prompts more than once with different ids: @acme\/both \(pmt_\w+, pmt_\w+_copy\), @acme\/published \(pmt_\w+, pmt_\w+_copy\)\. Each is synced once, as its get by name answers\.$/,
    );
    expect(proxy.seen.filter((s) => s.method === 'POST')).toHaveLength(3);
    // Printed once as a warning without --json.
    const plain = await sync(await project({ baseUrl: proxy.url, prompts: ['@acme/*'] }));
    expect(plain.stderr.match(/warning: The service's list names/g)).toHaveLength(1);
  });
});

describe('what a sync cost', () => {
  it.each([
    // The draft-only package is asked for on every sync (its 404 is what skips it).
    ['names no versions: each prompt fetched, and the summary says why', 'full' as const, 3, true],
    ['names each version: the gets saved, nothing to explain', 'versioned' as const, 1, false],
  ])('a second sync when the list %s', async (_name, listNames, gets, explained) => {
    const server = await serve({ dir, keys: [{ key: KEY }], listNames });
    const proxy = await wireProxy(server.url);
    const cwd = await project({ baseUrl: proxy.url, prompts: ['@acme/*'] });
    expect((await sync(cwd)).code).toBe(0);
    const before = proxy.seen.length;
    const second = await sync(cwd);
    expect(second.code, second.stderr).toBe(0);
    expect(proxy.seen.slice(before).filter((s) => s.method === 'POST')).toHaveLength(gets);
    const note = "the service's list names no versions, so each prompt was fetched";
    if (explained) expect(second.stderr).toMatch(new RegExp(`up to date, no file changed \\(4 requests; ${note}, [\\d.]+ s\\)`));
    else expect(second.stderr).not.toContain(note);
  });
});
