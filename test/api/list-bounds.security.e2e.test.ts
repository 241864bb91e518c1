/**
 * Finding 3 (lists): a service that lists forever, or sends one enormous page, is stopped by
 * limits.listPages / listItems / responseBytes, whatever it says; the error names the limit and
 * the option that raises it, and nothing is written.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { DEFAULT_LIMITS } from '../../src/limits.js';
import { caught } from '../api/helpers.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { hostileService, json } from '../helpers/hostile-network.js';
import { storeTree } from '../helpers/project.js';

const { project } = disposables();

/** Every page full, `hasMore: true`, a fresh cursor each time: never ends on its own. */
const endless = hostileService((req, res) => {
  const cursor = new URL(req.url!, 'http://x').searchParams.get('cursor') ?? 'c0';
  const page = Number(cursor.slice(1));
  const prompts = Array.from({ length: 100 }, (_, i) => ({ id: `p${page}_${i}`, title: 't', packageName: `@acme/p-${page}-${i}` }));
  json(res, 200, { prompts, cursor: `c${page + 1}`, hasMore: true });
});

/** One page of 200,000 small items. */
const hugePage = hostileService((_req, res) => {
  const prompts = Array.from({ length: 200_000 }, (_, i) => ({ id: `p${i}`, title: 't', packageName: `@acme/p-${i}` }));
  json(res, 200, { prompts, cursor: null, hasMore: false });
});

describe('an endless list', () => {
  it('stops at limits.listPages with an error naming the limit and its option', async () => {
    const service = await endless();
    const client = createClient({ baseUrl: service.url, limits: { listPages: 50 } });
    try {
      const error = await caught(client.listAll());
      expect(error.message).toBe(
        `The service's prompt list has more than 50 pages (5000 prompts so far), the limit 50 (option "limits.listPages" in the config; default ${DEFAULT_LIMITS.listPages}); stopped listing.`,
      );
      expect(error).toMatchObject({ code: 'too_large' });
      expect(service.count('/v1/prompts')).toBe(50);
    } finally {
      await client.close();
    }
  });

  it('stops at the default of 1000 pages when the config says nothing', async () => {
    const service = await endless();
    const client = createClient({ baseUrl: service.url });
    try {
      expect((await caught(client.listAll())).message).toContain('more than 1000 pages');
      expect(service.count('/v1/prompts')).toBe(1000);
    } finally {
      await client.close();
    }
  });

  it('through the built CLI: the limit comes from the config, exit 1, nothing written', async () => {
    const service = await endless();
    const dir = await project({ baseUrl: service.url, prompts: ['@acme/*'], limits: { listPages: 3 } });
    const run = await runBuiltCli(['sync'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('more than 3 pages');
    expect(run.stderr).toContain('option "limits.listPages" in the config');
    // List pages only (gets of the listed names start with the first page and are not counted here).
    expect(service.count('/v1/prompts?')).toBe(3);
    expect(await storeTree(dir)).toEqual({});
  });
});

describe('a page of 200,000 items', () => {
  it('is refused by limits.listItems before any item is validated', async () => {
    const service = await hugePage();
    const client = createClient({ baseUrl: service.url });
    try {
      const error = await caught(client.listAll());
      expect(error.message).toMatch(
        /^The service's prompt list has more than 100000 prompts \(page 1 brings it to 200000\), the limit 100000 \(option "limits\.listItems"/,
      );
      // Not retried: the same page would come again.
      expect(service.count('/v1/prompts')).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('is cut off at limits.responseBytes when that is lower, reading no further', async () => {
    const service = await hugePage();
    const client = createClient({ baseUrl: service.url, limits: { responseBytes: 1_000_000 } });
    try {
      const error = await caught(client.listAll());
      expect(error).toMatchObject({ code: 'too_large' });
      expect(error.message).toBe(
        `The answer to GET /v1/prompts while listing prompts is larger than 1000000 bytes, the limit 1000000 (option "limits.responseBytes" in the config; default ${DEFAULT_LIMITS.responseBytes}); stopped reading there.`,
      );
      expect(service.count('/v1/prompts')).toBe(1);
    } finally {
      await client.close();
    }
  });
});
