/**
 * What real servers, proxies and CDNs do to answers on the way, in front of the real local service
 * (`startServer`) on a loopback port: mount it under a path prefix, compress answers unasked,
 * re-encode them in another charset, redirect, answer 404 for one endpoint, or accept a request and
 * never answer. Every request is recorded; closed after the test file.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll } from 'vitest';

/** What the proxy does to one request; undefined passes it through unchanged. */
export type WireChange =
  /** Compress the service's answer with this encoding and say so in `Content-Encoding`. */
  | { encode: 'gzip' | 'deflate' | 'deflate-raw' | 'br' | 'x-unknown' }
  /** Re-encode the answer's text; `declare` is the charset label sent (null: none), `bom` adds a byte-order mark. */
  | { charset: 'latin1' | 'utf-16le' | 'utf-16be' | 'utf-8'; declare: string | null; bom?: boolean }
  /** The service's JSON answer, rewritten (a field made null, a number sent as a string). */
  | { json: (body: unknown) => unknown }
  /** Answer this instead of asking the service. */
  | { status: number; body: unknown; headers?: Record<string, string> }
  /** Accept the request and never answer it. */
  | { hang: true };

interface WireRequest {
  method: string;
  /** Path and query as the proxy received them. */
  url: string;
  headers: IncomingHttpHeaders;
}

export interface WireProxy {
  url: string;
  /** `METHOD path?query` of every request, in order. */
  seen: WireRequest[];
  count(pathPrefix: string): number;
}

export interface WireOptions {
  /** The service is mounted under this path (`/claro`): other paths answer a gateway's 404. */
  prefix?: string;
  change?: (request: WireRequest) => WireChange | undefined;
}

const servers: Array<ReturnType<typeof createServer>> = [];
afterAll(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A proxy to the service at `target` (its URL), changing answers as `options.change` says. */
export async function wireProxy(target: string, options: WireOptions = {}): Promise<WireProxy> {
  const seen: WireRequest[] = [];
  const prefix = options.prefix ?? '';
  const server = createServer(async (req, res) => {
    const request = { method: req.method ?? '', url: req.url ?? '/', headers: req.headers };
    seen.push(request);
    const change = options.change?.(request);
    if (change && 'hang' in change) return; // the socket stays open; closed with the server
    if (change && 'status' in change) return send(res, change.status, JSON.stringify(change.body), change.headers);
    if (!request.url.startsWith(`${prefix}/`)) {
      return send(res, 404, '<html><body>Not Found</body></html>', { 'content-type': 'text/html' });
    }
    const upstream = await forward(target, req, request.url.slice(prefix.length));
    let body = upstream.body;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(upstream.headers)) {
      if (typeof value === 'string' && name !== 'content-length' && name !== 'transfer-encoding' && name !== 'connection')
        headers[name] = value;
    }
    if (change && 'json' in change) body = Buffer.from(JSON.stringify(change.json(JSON.parse(body.toString('utf8')))));
    if (change && 'encode' in change) {
      body = compress(change.encode, body);
      headers['content-encoding'] = change.encode === 'deflate-raw' ? 'deflate' : change.encode;
    }
    if (change && 'charset' in change) {
      const text = body.toString('utf8');
      const encoded =
        change.charset === 'utf-16be'
          ? Buffer.from(text, 'utf16le').swap16()
          : Buffer.from(text, change.charset === 'latin1' ? 'latin1' : change.charset);
      const mark = change.charset === 'utf-16le' ? [0xff, 0xfe] : change.charset === 'utf-16be' ? [0xfe, 0xff] : [0xef, 0xbb, 0xbf];
      body = change.bom ? Buffer.concat([Buffer.from(mark), encoded]) : encoded;
      headers['content-type'] = change.declare === null ? 'application/json' : `application/json; charset=${change.declare}`;
    }
    send(res, upstream.status, body, headers);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
  return { url, seen, count: (pathPrefix) => seen.filter((s) => s.url.startsWith(pathPrefix)).length };
}

function send(res: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string> = {}): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'content-type': 'application/json', ...headers, 'content-length': String(bytes.length) });
  res.end(bytes);
}

function compress(encoding: string, body: Buffer): Buffer {
  if (encoding === 'gzip') return gzipSync(body);
  if (encoding === 'deflate') return deflateSync(body);
  if (encoding === 'deflate-raw') return deflateRawSync(body);
  if (encoding === 'br') return brotliCompressSync(body);
  return body;
}

/** The service's answer to the same request (method, headers, body) at `path`. */
function forward(
  target: string,
  req: IncomingMessage,
  path: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { host: _host, ...headers } = req.headers;
      const out = httpRequest(`${target}${path}`, { method: req.method, headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(parts) }));
        answer.on('error', reject);
      });
      out.on('error', reject);
      out.end(Buffer.concat(chunks));
    });
  });
}
