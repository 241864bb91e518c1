/**
 * Issue 28, "No run can hang": every request ends by its deadline whatever the failure mode. The
 * hang was undici's: a Pool counts a connection whose request it refused (a header value outside
 * Latin-1) as busy for good, so after `connections` refusals every later request waits in the
 * pool's queue, where its abort signal never reaches it. The deadline now settles the attempt by
 * its own timer. Also: a server that accepts and never answers ends the run within its stated
 * bound (docs/service-interface.md, "Answers on the wire"), through the built CLI.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttemptFailure, httpAttempt } from '../../src/api/http-attempt.js';
import { createClient } from '../../src/api/index.js';
import { runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { storeTree } from '../helpers/project.js';
import { caught } from './helpers.js';

const { project } = disposables();
const KEY = `sk_live_${'DeadlineKey'.padEnd(38, 'd')}wxyz`;

let answering: Server;
let origin: string;
/** Accepts every request and never answers it. */
let silent: Server;
let silentUrl: string;
const heard: string[] = [];

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  answering = createServer((_req, res) => res.end('{}'));
  origin = await listen(answering);
  silent = createServer((req) => heard.push(`${req.method} ${req.url}`));
  silentUrl = await listen(silent);
});
afterAll(async () => {
  for (const server of [answering, silent]) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

describe('a request the HTTP client holds in its queue', () => {
  it('ends by its deadline: the abort never reaches it, the timer does', async () => {
    const pool = new Pool(origin, { connections: 2, pipelining: 1 });
    try {
      const refused = { authorization: 'Bearer sk_live_…' };
      // Each refusal marks one connection busy for good (undici 7's Pool).
      for (let i = 0; i < 2; i++) {
        const failure = await caught(
          httpAttempt(pool, undefined, { method: 'GET', path: '/', headers: refused, timeoutMs: 1000, maxBytes: 100 }),
        );
        expect(failure).toMatchObject({ kind: 'refused', code: 'UND_ERR_INVALID_ARG' });
      }
      const started = performance.now();
      const held = await caught(httpAttempt(pool, undefined, { method: 'GET', path: '/', headers: {}, timeoutMs: 200, maxBytes: 100 }));
      expect(held).toBeInstanceOf(AttemptFailure);
      expect(held).toMatchObject({ kind: 'timeout' });
      // Bounded: before the fix this promise never settled.
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      await pool.destroy();
    }
  });
});

describe('a client whose requests cannot end', () => {
  it('closes anyway: what the pool still holds after a second is cut', async () => {
    const client = createClient({ baseUrl: silentUrl, apiKey: KEY, retries: 0, timeoutMs: 100 });
    const error = await caught(client.health());
    expect(error).toMatchObject({ code: 'timeout' });
    expect(error.message).toBe(`The prompt service at ${silentUrl} did not answer within 100 ms while checking health (1 attempt).`);
    const started = performance.now();
    await client.close();
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('a compressed answer that expands without end', () => {
  it('is cut at limits.responseBytes as it is decoded, never held whole', async () => {
    // 64 MiB of zeros, 64 KiB on the wire.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
      res.end(bomb);
    });
    const url = await listen(server);
    const client = createClient({ baseUrl: url, apiKey: KEY, limits: { responseBytes: 1024 * 1024 } });
    try {
      const error = await caught(client.health());
      expect(error).toMatchObject({ code: 'too_large' });
      expect(error.message).toContain('is larger than 1048576 bytes');
      expect(client.stats.requests).toBe(1);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('through the built CLI: a service that accepts and never answers', () => {
  it('ends within its bound (6 attempts × timeout + at most 7.75 s of backoff), exit 1, saying why; nothing written', async () => {
    // A short timeout: the bound is what is tested, not the default's length.
    const dir = await project({ baseUrl: silentUrl, prompts: ['@acme/*'], timeout: 100 });
    const started = performance.now();
    const run = await runBuiltCli(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY }, timeoutMs: 30_000 });
    const seconds = (performance.now() - started) / 1000;
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`The prompt service at ${silentUrl} did not answer within 100 ms while listing prompts (6 attempts).`);
    expect(seconds).toBeLessThan(6 * 0.1 + 7.75 + 5);
    expect(heard.filter((line) => line.startsWith('GET /v1/prompts'))).toHaveLength(6);
    expect(await storeTree(dir)).toEqual({});
  });
});
