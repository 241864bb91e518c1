/**
 * A base URL that is no prompt service is said at once: an ordinary web server (501/405 or an
 * HTML page) after its first answer, a refused connection on a literal loopback address within
 * 3 s. Built CLI against loopback servers of the test's own.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';

const { project, defer } = disposables();
const KEY = `sk_live_${'NotAService'.padEnd(38, 'n')}abcd`;

/** A web server of the test's own that records every request; closed after the file. */
async function webServer(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  defer(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/** What Python's `http.server` answers: a file listing for GET, 501 for anything else, both HTML. */
const staticFiles = (req: IncomingMessage, res: ServerResponse) => {
  const status = req.method === 'GET' ? 404 : 501;
  res.writeHead(status, { 'content-type': 'text/html;charset=utf-8' }).end(`<!DOCTYPE HTML><title>Error response</title><p>${status}`);
};

async function sync(baseUrl: string, prompts: string[]) {
  const cwd = await project({ baseUrl, prompts });
  const started = Date.now();
  const run = await runBuiltCli(['sync'], { cwd, env: { PROMPTLOCK_API_KEY: KEY } });
  return { ...run, ms: Date.now() - started };
}

describe('a base URL that is not a prompt service', () => {
  it('a static web server (501 to POST): said after the first answer, no retries, exit 1', async () => {
    const web = await webServer(staticFiles);
    const run = await sync(web.url, ['@acme/support-reply']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`error: ${web.url} is not a prompt service (answered 501, text/html).`);
    expect(run.stderr.match(/is not a prompt service/g)).toHaveLength(1);
    expect(web.requests).toEqual(['POST /v1/prompts/get']);
    expect(run.ms).toBeLessThan(3_000);
  });

  it('many prompts: one message, and no prompt is asked for twice', async () => {
    const web = await webServer(staticFiles);
    const names = Array.from({ length: 40 }, (_, i) => `@acme/prompt-${i}`);
    const run = await sync(web.url, names);
    expect(run.code).toBe(1);
    expect(run.stderr.match(/is not a prompt service/g)).toHaveLength(1);
    expect(run.stderr).not.toMatch(/down or overloaded|prompts failed/);
    expect(new Set(web.requests).size).toBe(web.requests.length);
  });

  it('"every prompt" against the same server: the listing is the first such answer (404, text/html)', async () => {
    const web = await webServer(staticFiles);
    const run = await sync(web.url, []);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`error: ${web.url} is not a prompt service (answered 404, text/html).`);
    expect(web.requests).toEqual(['GET /v1/prompts?limit=100']);
  });

  it('405 from a server that takes no POST, whatever its content type', async () => {
    const web = await webServer((_req, res) => res.writeHead(405, { 'content-type': 'text/plain' }).end('Method Not Allowed'));
    const run = await sync(web.url, ['@acme/support-reply']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`error: ${web.url} is not a prompt service (answered 405, text/plain).`);
    expect(web.requests).toHaveLength(1);
  });

  it('a 503 page from a proxy in front of a service that is down is still retried', async () => {
    const web = await webServer((_req, res) => res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>503</h1>'));
    const cwd = await project({ baseUrl: web.url, prompts: ['@acme/support-reply'] });
    const run = await runBuiltCli(['sync'], { cwd, env: { PROMPTLOCK_API_KEY: KEY } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('The service failed with 503');
    expect(web.requests.length).toBeGreaterThan(1);
  }, 30_000);
});

describe('nothing listens at a loopback address', () => {
  it('a refused connection on 127.0.0.1 is reported within 3 s, once, saying what to start', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const run = await sync(`http://127.0.0.1:${port}`, ['@acme/a', '@acme/b', '@acme/c']);
    expect(run.code).toBe(1);
    expect(run.stderr.match(/Could not reach the prompt service at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED\./g)).toHaveLength(1);
    expect(run.stderr).toContain('promptlock serve');
    expect(run.ms).toBeLessThan(3_000);
  });
});
