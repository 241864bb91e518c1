import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { ServiceError } from '../../src/errors.js';
import { caught, everythingOf, withTinyServer } from './helpers.js';

const KEY = `sk_live_${'K'.repeat(38)}wxyz`;
const item = (i: number) => ({ id: `pmt_${i}`, title: `Prompt ${i}`, packageName: `@acme/p-${i}` });
const json = (body: unknown) => JSON.stringify(body);

describe('paging', () => {
  it('follows cursors with limit=100 until hasMore is false', async () => {
    const seen: string[] = [];
    await withTinyServer(
      (req, res) => {
        seen.push(req.url!);
        const cursor = new URL(req.url!, 'http://x').searchParams.get('cursor');
        const page = cursor === null ? 0 : Number(cursor);
        res.setHeader('content-type', 'application/json');
        res.end(json({ data: { prompts: [item(page * 2), item(page * 2 + 1)], cursor: String(page + 1), hasMore: page < 2 } }));
      },
      async (url) => {
        const client = createClient({ baseUrl: url, apiKey: KEY });
        try {
          expect((await client.listAll()).map((p) => p.id)).toEqual(['pmt_0', 'pmt_1', 'pmt_2', 'pmt_3', 'pmt_4', 'pmt_5']);
          expect(seen).toEqual(['/v1/prompts?limit=100', '/v1/prompts?limit=100&cursor=1', '/v1/prompts?limit=100&cursor=2']);
        } finally {
          await client.close();
        }
      },
    );
  });

  it.each([
    ['the same cursor again', (page: number) => (page === 0 ? 'abc' : 'abc'), 'gives the cursor "abc" again. Stopped after 4 prompts'],
    ['no cursor', () => null, 'gives no cursor. Stopped after 2 prompts'],
  ])('fails clearly when a page with hasMore gives %s', async (_name, nextCursor, expected) => {
    let requests = 0;
    await withTinyServer(
      (_req, res) => {
        const page = requests++;
        res.end(json({ prompts: [item(page * 2), item(page * 2 + 1)], cursor: nextCursor(page), hasMore: true }));
      },
      async (url) => {
        const client = createClient({ baseUrl: url, apiKey: KEY });
        try {
          const error = await caught(client.listAll());
          expect(error).toBeInstanceOf(ServiceError);
          expect(error.code).toBe('invalid_response');
          expect(error.message).toContain("The service's prompt list does not advance");
          expect(error.message).toContain(expected);
          expect(requests).toBeLessThanOrEqual(3);
        } finally {
          await client.close();
        }
      },
    );
  });
});

describe('invalid bodies', () => {
  it('names the endpoint and the field after the first answer: the same answer would come back', async () => {
    let requests = 0;
    await withTinyServer(
      (_req, res) => {
        requests++;
        const prompts = [item(0), item(1), item(2), { ...item(3), packageName: 42 }];
        res.end(json({ prompts, cursor: null, hasMore: false }));
      },
      async (url) => {
        const client = createClient({ baseUrl: url, apiKey: KEY, retries: 2, backoffBaseMs: 1 });
        try {
          const error = await caught(client.listAll());
          expect(error.message).toBe('The service answered GET /v1/prompts with an invalid body: prompts[3].packageName: expected string.');
          expect(error.code).toBe('invalid_response');
          expect(requests).toBe(1);
        } finally {
          await client.close();
        }
      },
    );
  });

  const changes: [string, Record<string, unknown> | string, string][] = [
    ['a missing field', { id: undefined }, 'field "id" is missing'],
    [
      'a bad context item',
      { context: [{ id: 'c', type: 'video', createdAt: 1 }] },
      'field "context[0].type" "video" must be "file" or "url"',
    ],
    ['not JSON', '<html>', 'the body is not JSON'],
  ];
  it.each(changes)('names the prompt and the field for %s', async (_name, change, expected) => {
    const prompt = {
      id: 'pmt_1',
      title: 'T',
      content: 'c',
      tags: [],
      version: 'v1',
      workspaceSlug: 'acme',
      packageName: '@acme/x:v1',
      context: [],
      metadata: { createdAt: 1 },
    };
    await withTinyServer(
      (_req, res) => res.end(typeof change === 'string' ? change : json({ ...prompt, ...change })),
      async (url) => {
        const client = createClient({ baseUrl: url, apiKey: KEY, retries: 0 });
        try {
          const error = await caught(client.getPrompt('@acme/x'));
          expect(error.message).toContain('The service answered POST /v1/prompts/get for @acme/x with an invalid body: ');
          expect(error.message).toContain(expected);
        } finally {
          await client.close();
        }
      },
    );
  });

  it('keeps extra fields, and critiquePrompt absent or null as it came', async () => {
    const base = {
      id: 'p',
      title: 'T',
      content: 'c',
      tags: [],
      version: 'v0',
      workspaceSlug: 'acme',
      packageName: '@acme/x:v0',
      context: [],
      metadata: { createdAt: 1, generatedAt: 2 },
    };
    let call = 0;
    await withTinyServer(
      (_req, res) => res.end(json(call++ === 0 ? { ...base, extra: { a: 1 } } : { data: { ...base, critiquePrompt: null } })),
      async (url) => {
        const client = createClient({ baseUrl: url, apiKey: KEY });
        try {
          const first = await client.getPrompt('@acme/x:draft');
          expect(first.extra).toEqual({ a: 1 });
          expect('critiquePrompt' in first).toBe(false);
          const second = await client.getPrompt('@acme/x:draft');
          expect(second.critiquePrompt).toBeNull();
        } finally {
          await client.close();
        }
      },
    );
  });
});

describe('connections', () => {
  it.each([
    ['a literal loopback address: at once, nothing listens on this machine', '127.0.0.1', 1],
    ['a name (localhost): after retrying, like any other network error', 'localhost', 2],
  ])('reports a refused connection to %s', async (_name, host, requests) => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const client = createClient({ baseUrl: `http://${host}:${port}`, apiKey: KEY, retries: 1, backoffBaseMs: 1 });
    try {
      const error = await caught(client.health());
      expect(error).toMatchObject({ code: 'network' });
      expect(error.message).toBe(`Could not reach the prompt service at http://${host}:${port}: ECONNREFUSED.`);
      expect(client.stats.requests).toBe(requests);
      expect(everythingOf(error)).not.toContain(KEY);
    } finally {
      await client.close();
    }
  });

  it('keeps at most `concurrency` requests in flight, over reused keep-alive connections', async () => {
    let active = 0;
    let peak = 0;
    const sockets = new Set<unknown>();
    await withTinyServer(
      (req, res) => {
        sockets.add(req.socket);
        active++;
        peak = Math.max(peak, active);
        setTimeout(() => {
          active--;
          res.end(json({ status: 'ok', timestamp: new Date(0).toISOString() }));
        }, 5);
      },
      async (url) => {
        const client = createClient({ baseUrl: url, apiKey: KEY, concurrency: 4 });
        try {
          await Promise.all(Array.from({ length: 40 }, () => client.health()));
          expect(peak).toBeLessThanOrEqual(4);
          expect(sockets.size).toBeLessThanOrEqual(4);
        } finally {
          await client.close();
        }
      },
    );
  });

  it('downloads a file without the Authorization header, checking its size', async () => {
    const seen: (string | undefined)[] = [];
    await withTinyServer(
      (req, res) => {
        seen.push(req.headers.authorization);
        res.end('hello file');
      },
      async (url) => {
        // A storage host on this machine: only for a service on this machine too (docs/security.md).
        const client = createClient({ baseUrl: url, apiKey: KEY, retries: 1, backoffBaseMs: 1 });
        try {
          const bytes = await client.downloadFile(`${url}/bucket/f.txt?sig=secret`, { maxBytes: 100, expectedSize: 10 });
          expect(Buffer.from(bytes).toString()).toBe('hello file');
          const wrongSize = await caught(client.downloadFile(`${url}/bucket/f.txt?sig=secret`, { maxBytes: 100, expectedSize: 11 }));
          expect(wrongSize.message).toContain('the file has 10 bytes, the prompt says 11');
          expect(wrongSize.message).not.toContain('sig=secret');
          expect(seen).toEqual([undefined, undefined, undefined]);
        } finally {
          await client.close();
        }
      },
    );
  });
});
