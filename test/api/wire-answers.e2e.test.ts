/**
 * Issue 28: what real servers, proxies and CDNs do on the wire, in front of the real local service
 * (test/helpers/wire-proxy.ts), through the CLI: other charsets are read as sent or refused (never
 * U+FFFD in a snapshot), compressed answers are decoded, a same-origin 307/308 is followed and any
 * other redirect fails naming its target, a path-prefixed mount works for every endpoint and a
 * base URL ending in /v1 fails at once, and what retrying cannot change fails on the first answer.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { storeTree } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';
import { type WireChange, type WireOptions, wireProxy } from '../helpers/wire-proxy.js';
import { caught } from './helpers.js';

const { serve, project, folder } = disposables();
const KEY = `sk_live_${'WireAnswerKey'.padEnd(38, 'w')}wxyz`;
const CAFE = "Un café crème pour {{name}}, s'il vous plaît.";

let service: string;
/** The store a sync through an unchanged wire writes: every variant must write the same bytes. */
let plain: Record<string, string>;

beforeAll(async () => {
  const dir = await folder({
    'acme/cafe/prompt.json': JSON.stringify({ title: 'Café crème' }),
    'acme/cafe/v1.md': CAFE,
    'acme/menu/prompt.json': JSON.stringify({
      title: 'Menu',
      context: [{ type: 'file', label: 'Carte', file: 'files/carte.txt', mimeType: 'text/plain' }],
    }),
    'acme/menu/files/carte.txt': 'Crêpes, café, thé\n',
    'acme/menu/v1.md': 'Voici la carte, {{name}}.',
  });
  service = (await serve({ dir, keys: [{ key: KEY }] })).url;
  const through = await wireProxy(service);
  const run = await sync(await project({ baseUrl: through.url, prompts: ['@acme/*'], contextFiles: true }));
  expect(run.code, run.stderr).toBe(0);
  plain = await storeTree(run.dir);
  expect(await readFile(path.join(run.dir, 'prompts/acme/cafe.json'), 'utf8')).toContain('café crème');
});

async function sync(dir: string, env: Record<string, string> = {}) {
  return { dir, ...(await runCliInProcess(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY, ...env }, timeoutMs: 30_000 })) };
}

/** A sync of every prompt, with its files, through a wire that changes answers as `change` says. */
async function syncThrough(change: WireOptions['change'], options: Omit<WireOptions, 'change'> = {}) {
  const proxy = await wireProxy(service, { ...options, change });
  const run = await sync(await project({ baseUrl: proxy.url, prompts: ['@acme/*'], contextFiles: true }));
  return { ...run, proxy, tree: await storeTree(run.dir) };
}

const gets = (proxy: { seen: { method: string }[] }) => proxy.seen.filter((s) => s.method === 'POST').length;

describe('charsets', () => {
  it.each<[string, WireChange]>([
    ['latin-1, declared iso-8859-1', { charset: 'latin1', declare: 'iso-8859-1' }],
    ['UTF-16LE with its byte-order mark, declared utf-16', { charset: 'utf-16le', declare: 'utf-16', bom: true }],
    ['UTF-16BE, declared utf-16be', { charset: 'utf-16be', declare: 'utf-16be' }],
    ['UTF-8 after a byte-order mark, no charset declared', { charset: 'utf-8', declare: null, bom: true }],
  ])('%s: read as sent, the same files as over a plain wire', async (_name, change) => {
    // Every JSON answer of the API (the file itself is bytes, not text).
    const run = await syncThrough((request) => (request.url.startsWith('/files/') ? undefined : change));
    expect(run.code, run.stderr).toBe(0);
    expect(run.tree).toEqual(plain);
  });

  it.each([
    ['declared utf-8', 'utf-8'],
    ['with no charset declared', null],
  ])('latin-1 bytes %s are refused on the first answer, naming the byte; nothing written', async (_name, declare) => {
    const run = await syncThrough((request) => (request.method === 'POST' ? { charset: 'latin1', declare } : undefined));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/with an invalid body: the body is not valid UTF-8 \([^)]*\) at byte \d+/);
    expect(run.stderr).not.toContain('\ufffd');
    expect(run.tree).toEqual({});
    // Each prompt asked once: the same bytes would come back.
    expect(gets(run.proxy)).toBe(2);
  });

  it('a charset promptlock cannot decode is refused with its name', async () => {
    const run = await syncThrough((request) => (request.method === 'POST' ? { charset: 'utf-8', declare: 'x-klingon' } : undefined));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('its Content-Type declares charset "x-klingon", which promptlock cannot decode');
    expect(gets(run.proxy)).toBe(2);
  });
});

describe('compressed answers the client did not ask for', () => {
  it.each(['gzip', 'deflate', 'deflate-raw', 'br'] as const)('%s: decoded, the same files as over a plain wire', async (encoding) => {
    const run = await syncThrough(() => ({ encode: encoding }));
    expect(run.code, run.stderr).toBe(0);
    expect(run.tree).toEqual(plain);
    expect(run.proxy.seen.some((s) => s.url.startsWith('/api/v1/prompts/context/download-url'))).toBe(true);
  });

  it('an encoding promptlock cannot decode fails on the first answer, saying which', async () => {
    const run = await syncThrough(() => ({ encode: 'x-unknown' }));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Content-Encoding "x-unknown", which promptlock cannot decode (it reads gzip, deflate and br)');
    expect(run.proxy.seen).toHaveLength(1);
  });
});

describe('redirects', () => {
  /** A proxy mounted at /old that sends every request on to the same path without it. */
  const moved =
    (status: number, to = '') =>
    (request: { url: string }) =>
      request.url.startsWith('/old/')
        ? { status, body: { moved: true }, headers: { location: `${to}${request.url.slice('/old'.length)}` } }
        : undefined;

  it.each([307, 308])('a %s to the same origin is followed, the POST body kept', async (status) => {
    const proxy = await wireProxy(service, { change: moved(status) });
    const run = await sync(await project({ baseUrl: `${proxy.url}/old`, prompts: ['@acme/*'], contextFiles: true }));
    expect(run.code, run.stderr).toBe(0);
    expect(await storeTree(run.dir)).toEqual(plain);
    // Every request twice: once redirected, once answered.
    const redirected = proxy.seen.filter((s) => s.url.startsWith('/old/')).length;
    expect(redirected).toBe(proxy.seen.length - redirected);
  });

  it.each([301, 302, 303])('a %s fails naming where the service moved, and the base URL to set', async (status) => {
    const proxy = await wireProxy(service, { change: moved(status) });
    const run = await sync(await project({ baseUrl: `${proxy.url}/old`, prompts: ['@acme/*'] }));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `The service moved to ${proxy.url}: ${proxy.url}/old answered ${status} redirecting GET /v1/prompts to ${proxy.url}/v1/prompts (a ${status}, which promptlock does not follow).`,
    );
    expect(run.stderr).toContain(`Set baseUrl (or PROMPTLOCK_BASE_URL) to ${proxy.url} if you trust that address`);
    expect(proxy.seen).toHaveLength(1);
    expect(await storeTree(run.dir)).toEqual({});
  });

  it('a 307 that leads back to itself stops after 5 redirects', async () => {
    const proxy = await wireProxy(service, { change: (request) => ({ status: 307, body: {}, headers: { location: request.url } }) });
    const client = createClient({ baseUrl: proxy.url, apiKey: KEY });
    try {
      const error = await caught(client.health());
      expect(error.message).toBe(
        `The service at ${proxy.url} answered 307 redirecting GET /v1/health to ${proxy.url}/v1/health (more than 5 redirects) while checking health.`,
      );
      expect(proxy.seen).toHaveLength(6);
    } finally {
      await client.close();
    }
  });

  it('a 307 to another origin is not followed: the key never goes there', async () => {
    const elsewhere: string[] = [];
    const other = createServer((req, res) => {
      elsewhere.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.end('{}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherOrigin = `http://localhost:${(other.address() as AddressInfo).port}`;
    try {
      const proxy = await wireProxy(service, { change: moved(307, otherOrigin) });
      const run = await sync(await project({ baseUrl: `${proxy.url}/old`, prompts: ['@acme/*'] }));
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`The service moved to ${otherOrigin}:`);
      expect(run.stderr).toContain('(another origin)');
      expect(elsewhere).toEqual([]);
      expect(proxy.seen).toHaveLength(1);
    } finally {
      other.closeAllConnections();
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });
});

describe('base URLs', () => {
  it('a path-prefixed mount: every endpoint under the prefix, the context-file download included', async () => {
    const run = await syncThrough(undefined, { prefix: '/gateway/claro' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.tree).toEqual(plain);
    expect(run.proxy.seen.map((s) => s.url).filter((url) => !url.startsWith('/gateway/claro/'))).toEqual([]);
    expect(run.proxy.count('/gateway/claro/api/v1/prompts/context/download-url')).toBe(1);
  });

  it.each(['/v1', '/v1/', '/claro/v1'])('a base URL ending in %s fails at once with exit 2, saying what to use', async (suffix) => {
    const proxy = await wireProxy(service);
    const run = await sync(await project({ baseUrl: `${proxy.url}${suffix}`, prompts: ['@acme/*'] }));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `it ends in /v1, which promptlock adds to every path itself: use ${proxy.url}${suffix.replace(/\/v1\/?$/, '')}`,
    );
    expect(proxy.seen).toEqual([]);
  });

  it('PROMPTLOCK_BASE_URL ending in /v1 in .env.local is refused naming the file', async () => {
    const proxy = await wireProxy(service);
    const dir = await project({ prompts: ['@acme/*'] });
    await writeFile(path.join(dir, '.env.local'), `PROMPTLOCK_BASE_URL=${proxy.url}/v1\n`);
    const run = await sync(dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Invalid value for PROMPTLOCK_BASE_URL in .env.local:');
    expect(proxy.seen).toEqual([]);
  });
});

describe('fail fast where retrying cannot help', () => {
  it('a schema-invalid answer fails on its first answer with the field named: 10 requests for 9 prompts, not 56', async () => {
    const bulk = await writeServedFolder(undefined, 9, 1);
    const server = await serve({ dir: bulk, keys: [{ key: KEY }] });
    const proxy = await wireProxy(server.url, {
      change: (request) => (request.method === 'POST' ? { json: (body) => ({ ...(body as object), title: null }) } : undefined),
    });
    const run = await sync(await project({ baseUrl: proxy.url, prompts: ['@bulk/*'] }));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/field "title"/);
    expect(proxy.count('/v1/prompts?')).toBe(1);
    expect(gets(proxy)).toBe(9);
    expect(await storeTree(run.dir)).toEqual({});
  });

  it('an unknown host is reported once, with its name', async () => {
    // Two dots: no resolver is asked (the name cannot be sent), so the test stays on this machine.
    const client = createClient({ baseUrl: 'https://promptlock..invalid', apiKey: KEY, backoffBaseMs: 1 });
    try {
      const error = await caught(client.listAll());
      expect(error.message).toBe(
        'Could not reach the prompt service at https://promptlock..invalid: the host name promptlock..invalid is not found (ENOTFOUND).',
      );
      expect(client.stats.requests).toBe(1);
      expect(client.stats.retries).toBe(0);
    } finally {
      await client.close();
    }
  });
});
