/** End-to-end over loopback HTTP: every row of the endpoint tables of docs/service-interface.md, against the sample workspace. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { renderTemplate } from '../../src/template/index.js';
import { call, EXAMPLES, getPrompt, KEY, serverPool } from './helpers.js';

const GLOBEX_KEY = 'sk_test_GlobexOnlyKey0000000000000000000000000000000';
const pool = serverPool();
let server: RunningServer;
let flat: RunningServer;
let wrapped: RunningServer;

beforeAll(async () => {
  const keys = [{ key: KEY }, { key: GLOBEX_KEY, workspace: 'globex' }];
  [server, flat, wrapped] = await Promise.all([
    pool.start({ keys, maxBodyBytes: 4096 }),
    pool.start({ keys, errors: 'flat', maxBodyBytes: 4096 }),
    pool.start({ keys, envelope: 'wrapped' }),
  ]);
});
afterAll(() => pool.closeAll());

/** Reads an authored text the way the server does: verbatim less one trailing newline. */
const authored = (relative: string) => readFileSync(path.join(EXAMPLES, relative), 'utf8').replace(/\n$/, '');

const ALL_PROMPTS = [
  '@acme/classify-ticket',
  '@acme/code-review',
  '@acme/default',
  '@acme/escape-gauntlet',
  '@acme/onboarding',
  '@acme/sql-helper',
  '@acme/summarize',
  '@acme/support-reply',
  '@acme/welcome',
  '@globex/2fa-code',
  '@globex/meeting-notes',
  '@globex/sales-email',
  '@globex/translate',
  '@globex/welcome',
];

describe('POST /v1/prompts/get', () => {
  const selectors: Array<[string, { given: string; version: string }]> = [
    ['no selector means latest', { given: '@acme/support-reply', version: 'v3' }],
    ['latest is the highest published version', { given: '@acme/support-reply:latest', version: 'v3' }],
    ['a pinned version', { given: '@acme/support-reply:v1', version: 'v1' }],
    ['draft answers v0', { given: '@acme/support-reply:draft', version: 'v0' }],
    ['v<N> shorthand files', { given: '@acme/onboarding:v2', version: 'v2' }],
    ['draft.md shorthand', { given: '@acme/code-review:draft', version: 'v0' }],
  ];
  it.each(selectors)('%s', async (_name, { given, version }) => {
    const answer = await getPrompt(server, given);
    expect(answer.status).toBe(200);
    expect(answer.body.version).toBe(version);
    expect(answer.body.packageName).toBe(`${given.replace(/:.*$/, '')}:${version}`);
    expect(answer.body.workspaceSlug).toBe(given.slice(1, given.indexOf('/')));
  });

  it('answers every field of the prompt object, with the texts verbatim', async () => {
    const before = Date.now();
    const { body } = await getPrompt(server, '@acme/support-reply:v3');
    expect(Object.keys(body)).toEqual(
      expect.arrayContaining([
        'id',
        'title',
        'content',
        'systemPrompt',
        'critiquePrompt',
        'description',
        'category',
        'tags',
        'version',
        'workspaceSlug',
        'packageName',
        'context',
        'metadata',
      ]),
    );
    expect(body).toMatchObject({
      title: 'Support reply',
      description: 'Answers a customer ticket',
      category: 'support',
      tags: ['customer-service', 'support'],
      content: authored('acme/support-reply/v3/content.md'),
      systemPrompt: authored('acme/support-reply/v3/system.md'),
      critiquePrompt: authored('acme/support-reply/v3/critique.md'),
    });
    expect(body.id).toMatch(/^pmt_[0-9a-f]{20}$/);
    expect(body.metadata.createdAt).toBeTypeOf('number');
    expect(body.metadata.generatedAt).toBeGreaterThanOrEqual(before);
    expect(body.metadata.generatedAt).toBeLessThanOrEqual(Date.now());
    expect(body.context).toEqual([
      {
        id: expect.stringMatching(/^ctx_/),
        type: 'file',
        label: 'Refund policy',
        fileName: 'refund-policy.md',
        fileSize: 99,
        mimeType: 'text/markdown',
        createdAt: body.metadata.createdAt,
      },
      {
        id: expect.stringMatching(/^ctx_/),
        type: 'url',
        label: 'Knowledge base',
        url: 'https://example.com/kb',
        urlFetchedAt: body.metadata.createdAt,
        createdAt: body.metadata.createdAt,
      },
    ]);
  });

  it('keeps backticks, ${, */, quotes, emoji and U+2028 byte for byte', async () => {
    const { body } = await getPrompt(server, '@acme/escape-gauntlet:v1');
    expect(body.content).toBe(authored('acme/escape-gauntlet/v1/content.md'));
    expect(body.content).toContain('\u2028');
    expect(body.systemPrompt).toContain('🚀');
    expect(body.title).toBe('Escape gauntlet "quoted" `ticked` ${title}');
  });

  it('substitutes variables in content with the shared template module', async () => {
    const variables = { customer_name: 'Ann', count: '3', unused: 'x' };
    const { body } = await getPrompt(server, '@acme/support-reply:v3', variables);
    expect(body.content).toBe(renderTemplate(authored('acme/support-reply/v3/content.md'), variables));
    expect(body.content).toBe('Hello Ann,\n\nYou have 3 unread messages about {{topic}}.\nQuote the policy when it applies.');
    // Only content is filled in (docs/service-interface.md); the other texts keep their placeholders.
    expect(body.critiquePrompt).toContain('{{customer_name}}');
  });

  it('answers a prompt with no variables, and one without critiquePrompt', async () => {
    const { body } = await getPrompt(server, '@acme/welcome');
    expect(body.content).toBe("Welcome to Acme! We're glad you're here.\nAsk me anything about your account.");
    expect(body.systemPrompt).toBeNull();
    expect('critiquePrompt' in body).toBe(false);
  });

  const notFound: Array<[string, string]> = [
    ['unknown package', '@acme/nope'],
    ['unknown workspace', '@nope/support-reply'],
    ['unpublished version', '@acme/support-reply:v9'],
    ['non-canonical version number', '@acme/support-reply:v01'],
    ['no draft', '@acme/welcome:draft'],
  ];
  it.each(notFound)('404 for %s', async (_name, given) => {
    const answer = await getPrompt(server, given);
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('not_found');
    expect(answer.body.error.message).toContain(given);
  });

  const invalid: Array<[string, { body: string; message: string }]> = [
    ['malformed JSON', { body: '{"package_name": ', message: 'Request body is not valid JSON: ' }],
    ['empty body', { body: '', message: 'Request body is required: send JSON like {"package_name": "@acme/support-reply:v2"}.' }],
    ['array body', { body: '[]', message: 'Request body must be a JSON object with "package_name" (and optionally "variables").' }],
    ['missing package_name', { body: '{}', message: 'package_name is required: a string like "@acme/support-reply:v2".' }],
    ['package_name not a string', { body: '{"package_name": 7}', message: 'package_name must be a string (got number).' }],
    [
      'package_name off pattern',
      { body: '{"package_name": "acme/x"}', message: 'package_name must match @<workspace>/<package>[:<version>] (got "acme/x").' },
    ],
    [
      'upper-case workspace',
      { body: '{"package_name": "@Acme/x"}', message: 'package_name must match @<workspace>/<package>[:<version>] (got "@Acme/x").' },
    ],
    [
      'bad selector',
      {
        body: '{"package_name": "@acme/x:newest"}',
        message: 'package_name must match @<workspace>/<package>[:<version>] (got "@acme/x:newest").',
      },
    ],
    [
      'variables an array',
      { body: '{"package_name": "@acme/welcome", "variables": []}', message: 'variables must be an object whose values are strings.' },
    ],
    [
      'variables null',
      { body: '{"package_name": "@acme/welcome", "variables": null}', message: 'variables must be an object whose values are strings.' },
    ],
    [
      'a number variable',
      {
        body: '{"package_name": "@acme/welcome", "variables": {"count": 3}}',
        message: 'variables.count must be a string (got number); send typed values in their string form.',
      },
    ],
  ];
  it.each(invalid)('400 validation_error for %s', async (_name, { body, message }) => {
    const answer = await call(server, '/v1/prompts/get', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('validation_error');
    expect(answer.body.error.message.startsWith(message)).toBe(true);
  });

  it('413 payload_too_large above maxBodyBytes, and a body at the limit is read', async () => {
    const huge = JSON.stringify({ package_name: '@acme/welcome', variables: { pad: 'x'.repeat(5000) } });
    const answer = await call(server, '/v1/prompts/get', { method: 'POST', body: huge });
    expect(answer.status).toBe(413);
    expect(answer.body.error).toEqual({
      code: 'payload_too_large',
      message: 'Request body is larger than 4096 bytes.',
      details: { maxBytes: 4096 },
    });
    const base = JSON.stringify({ package_name: '@acme/welcome', variables: { pad: '' } });
    const exact = JSON.stringify({ package_name: '@acme/welcome', variables: { pad: 'x'.repeat(4096 - base.length) } });
    expect(Buffer.byteLength(exact)).toBe(4096);
    expect((await call(server, '/v1/prompts/get', { method: 'POST', body: exact })).status).toBe(200);
    // The connection survives the 413: the next request on the pool is answered.
    expect((await call(server, '/v1/health')).status).toBe(200);
  });
});

describe('GET /v1/prompts', () => {
  async function walk(target: RunningServer, limit: number, key = KEY) {
    const names: string[] = [];
    let cursor = '';
    let pages = 0;
    for (;;) {
      const answer = await call(target, `/v1/prompts?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
      expect(answer.status).toBe(200);
      const page = target === wrapped ? answer.body.data : answer.body;
      expect(page.prompts.length).toBeLessThanOrEqual(limit);
      expect(typeof page.cursor).toBe('string');
      names.push(...page.prompts.map((p: { packageName: string }) => p.packageName));
      pages++;
      if (!page.hasMore) return { names, pages };
      cursor = page.cursor;
    }
  }

  it.each([1, 7, 100])('returns every prompt exactly once, in a stable order, with limit %i', async (limit) => {
    const { names, pages } = await walk(server, limit);
    expect(names).toEqual(ALL_PROMPTS);
    expect(pages).toBe(Math.ceil(ALL_PROMPTS.length / limit));
  });

  it('pages the same way in the wrapped envelope', async () => {
    expect((await walk(wrapped, 7)).names).toEqual(ALL_PROMPTS);
  });

  it('defaults to 20 items and lists only the workspace of a scoped key', async () => {
    const all = await call(server, '/v1/prompts');
    expect(all.body.prompts).toHaveLength(14);
    expect(all.body.hasMore).toBe(false);
    expect(all.body.prompts[0]).toEqual({
      id: expect.stringMatching(/^pmt_/),
      title: 'Classify ticket',
      packageName: '@acme/classify-ticket',
      workspaceSlug: 'acme',
      version: 'v1',
    });
    const { names } = await walk(server, 2, GLOBEX_KEY);
    expect(names).toEqual(ALL_PROMPTS.filter((n) => n.startsWith('@globex/')));
  });

  const badQueries: Array<[string, string, string]> = [
    ['limit 0', 'limit=0', 'limit must be an integer from 1 to 100 (got "0").'],
    ['limit 101', 'limit=101', 'limit must be an integer from 1 to 100 (got "101").'],
    ['limit not a number', 'limit=ten', 'limit must be an integer from 1 to 100 (got "ten").'],
    ['a forged cursor', 'cursor=bm90LWEtY3Vyc29y', "cursor is not one this service issued: pass the previous page's cursor unchanged."],
  ];
  it.each(badQueries)('400 validation_error for %s', async (_name, query, message) => {
    const answer = await call(server, `/v1/prompts?${query}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('validation_error');
    expect(answer.body.error.message).toBe(message);
  });
});

describe('errors in both shapes', () => {
  const rows: Array<[string, { request: () => [string, Parameters<typeof call>[2]]; status: number; nested: object; flat: object }]> = [
    [
      '401 missing key',
      {
        request: () => ['/v1/prompts', { key: null }],
        status: 401,
        nested: { error: { code: 'unauthorized', message: 'Missing API key: send the header "Authorization: Bearer <API key>".' } },
        flat: { error: 'Missing API key: send the header "Authorization: Bearer <API key>".' },
      },
    ],
    [
      '401 invalid key',
      {
        request: () => ['/v1/prompts/get', { key: 'sk_test_wrong', json: { package_name: '@acme/welcome' } }],
        status: 401,
        nested: { error: { code: 'unauthorized', message: 'Invalid API key: check the key, or create a new one.' } },
        flat: { error: 'Invalid API key: check the key, or create a new one.' },
      },
    ],
    [
      '403 key scoped to another workspace',
      {
        request: () => ['/v1/prompts/get', { key: GLOBEX_KEY, json: { package_name: '@acme/welcome' } }],
        status: 403,
        nested: {
          error: { code: 'forbidden', message: 'This API key has no access to workspace "acme".', details: { workspace: 'acme' } },
        },
        flat: { error: 'This API key has no access to workspace "acme".' },
      },
    ],
    [
      '404 prompt not found',
      {
        request: () => ['/v1/prompts/get', { json: { package_name: '@acme/nope' } }],
        status: 404,
        nested: { error: { code: 'not_found', message: 'Prompt @acme/nope not found.' } },
        flat: { error: 'Not found', message: 'Prompt @acme/nope not found.' },
      },
    ],
    [
      '404 unknown endpoint',
      {
        request: () => ['/v2/prompts', {}],
        status: 404,
        nested: { error: { code: 'not_found', message: 'No endpoint GET /v2/prompts.' } },
        flat: { error: 'Not found', message: 'No endpoint GET /v2/prompts.' },
      },
    ],
    [
      '400 validation error',
      {
        request: () => ['/v1/prompts/get', { json: { package_name: 'x' } }],
        status: 400,
        nested: {
          error: {
            code: 'validation_error',
            message: 'package_name must match @<workspace>/<package>[:<version>] (got "x").',
            details: { field: 'package_name' },
          },
        },
        flat: { error: 'package_name must match @<workspace>/<package>[:<version>] (got "x").' },
      },
    ],
    [
      '405 method not allowed',
      {
        request: () => ['/v1/prompts/get', { method: 'GET' }],
        status: 405,
        nested: {
          error: { code: 'method_not_allowed', message: 'GET is not allowed on /v1/prompts/get; use POST.', details: { allow: ['POST'] } },
        },
        flat: { error: 'GET is not allowed on /v1/prompts/get; use POST.' },
      },
    ],
  ];
  it.each(rows)('%s', async (_name, row) => {
    const [pathname, init] = row.request();
    const nested = await call(server, pathname, init);
    const flatAnswer = await call(flat, pathname, init);
    expect([nested.status, flatAnswer.status]).toEqual([row.status, row.status]);
    expect(nested.body).toEqual(row.nested);
    expect(flatAnswer.body).toEqual(row.flat);
    for (const answer of [nested, flatAnswer]) {
      expect(answer.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
      expect(answer.text).not.toContain(KEY);
      expect(answer.text).not.toContain(GLOBEX_KEY);
    }
  });

  const methods: Array<[string, string, string]> = [
    ['/v1/prompts', 'POST', 'GET, HEAD'],
    ['/v1/prompts/get', 'PUT', 'POST'],
    ['/v1/health', 'DELETE', 'GET, HEAD'],
    ['/v1', 'PATCH', 'GET, HEAD'],
    ['/api/v1/prompts/context/download-url', 'POST', 'GET, HEAD'],
  ];
  it.each(methods)('405 on %s for %s, with Allow: %s', async (pathname, method, allow) => {
    const answer = await call(server, pathname, { method, body: method === 'GET' ? undefined : '{}' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe(allow);
  });
});

describe('envelopes', () => {
  it('wraps every 2xx payload in { data } and leaves errors unwrapped', async () => {
    const got = await getPrompt(wrapped, '@acme/welcome:v1');
    expect(got.body).toEqual({ data: expect.objectContaining({ content: 'Welcome to Acme!', version: 'v1' }) });
    expect((await call(wrapped, '/v1/health', { key: null })).body).toEqual({ data: { status: 'ok', timestamp: expect.any(String) } });
    expect((await call(wrapped, '/v1')).body.data.endpoints.health).toBe('/v1/health');
    expect((await getPrompt(wrapped, '@acme/nope')).body).toEqual({
      error: { code: 'not_found', message: 'Prompt @acme/nope not found.' },
    });
  });
});

describe('health, descriptor, HEAD', () => {
  it('GET /v1/health needs no key', async () => {
    const answer = await call(server, '/v1/health', { key: null });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'ok', timestamp: expect.any(String) });
    expect(new Date(answer.body.timestamp).toISOString()).toBe(answer.body.timestamp);
  });

  it.each(['/v1', '/'])('serves the descriptor at %s', async (pathname) => {
    const answer = await call(server, pathname, { key: null });
    expect(answer.body).toMatchObject({
      name: expect.any(String),
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      description: expect.any(String),
      documentation: expect.any(String),
      endpoints: { health: '/v1/health', prompts: { get: 'POST /v1/prompts/get', list: 'GET /v1/prompts' } },
    });
  });

  it('answers HEAD like GET, without a body', async () => {
    const answer = await call(server, '/v1/health', { method: 'HEAD', key: null });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('');
  });
});

describe('context-file download', () => {
  async function fileItem(target: RunningServer, name: string) {
    const { body } = await getPrompt(target, name);
    const prompt = target === wrapped ? body.data : body;
    return prompt.context.find((c: { type: string }) => c.type === 'file');
  }

  it('answers { url, expiresIn } and the URL serves the bytes without the key', async () => {
    const item = await fileItem(server, '@globex/sales-email');
    const answer = await call(server, `/api/v1/prompts/context/download-url?contextId=${encodeURIComponent(item.id)}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ url: expect.stringMatching(new RegExp(`^${server.url}/files/`)), expiresIn: 300 });
    const file = await fetch(answer.body.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv');
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.equals(readFileSync(path.join(EXAMPLES, 'globex/sales-email/files/pricing.csv')))).toBe(true);
    expect(bytes.length).toBe(item.fileSize);
    expect(file.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  });

  it('serves binary files intact, in the wrapped envelope too', async () => {
    const { body } = await getPrompt(wrapped, '@globex/sales-email');
    const logo = body.data.context.find((c: { fileName?: string }) => c.fileName === 'logo.png');
    const answer = await call(wrapped, `/api/v1/prompts/context/download-url?contextId=${logo.id}`);
    const bytes = Buffer.from(await (await fetch(answer.body.data.url)).arrayBuffer());
    expect(bytes.equals(readFileSync(path.join(EXAMPLES, 'globex/sales-email/files/logo.png')))).toBe(true);
  });

  it('refuses altered or foreign URLs, and checks key, scope and id', async () => {
    const item = await fileItem(server, '@acme/support-reply');
    const { body } = await call(server, `/api/v1/prompts/context/download-url?contextId=${item.id}`);
    const tampered = body.url.replace(/signature=./, (s: string) => `${s.slice(0, -1)}${s.endsWith('A') ? 'B' : 'A'}`);
    expect((await call(server, tampered.slice(server.url.length), { key: null })).status).toBe(403);
    const stretched = body.url.replace(/expires=(\d+)/, (_: string, n: string) => `expires=${Number(n) + 1000}`);
    expect((await call(server, stretched.slice(server.url.length), { key: null })).status).toBe(403);
    // A URL signed by another server (another secret) is worthless here.
    expect((await call(flat, body.url.slice(server.url.length), { key: null })).status).toBe(403);
    expect((await call(server, `/api/v1/prompts/context/download-url?contextId=${item.id}`, { key: null })).status).toBe(401);
    expect((await call(server, `/api/v1/prompts/context/download-url?contextId=${item.id}`, { key: GLOBEX_KEY })).status).toBe(403);
    expect((await call(server, '/api/v1/prompts/context/download-url?contextId=ctx_nope')).status).toBe(404);
    expect((await call(server, '/api/v1/prompts/context/download-url?contextId=../../etc/passwd')).status).toBe(404);
    const missing = await call(server, '/api/v1/prompts/context/download-url');
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe('contextId is required: pass the id of a context item of type "file".');
  });

  it('never maps a request path onto the disk', async () => {
    for (const pathname of ['/files/..%2F..%2Fpackage.json', '/files/../../package.json', '/v1/../package.json', '/files/%2e%2e/x']) {
      const answer = await call(server, pathname, { key: null });
      expect([403, 404]).toContain(answer.status);
    }
  });
});

describe('load', () => {
  it('answers 200 concurrent requests without a 5xx', async () => {
    server.resetStats();
    const names = ALL_PROMPTS;
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        i % 4 === 0 ? call(server, '/v1/prompts?limit=7') : getPrompt(server, names[i % names.length]!, { name: `n${i}` }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(200).fill(200));
    expect(server.stats.requests).toBe(200);
    expect(server.stats.byRoute).toEqual({ list: 50, get: 150 });
    expect(server.stats.byStatus).toEqual({ 200: 200 });
  });
});
