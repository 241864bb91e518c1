/**
 * A hostile service for the network tests (lists, downloads, retries, terminal output): answers
 * are scripted per path and every request is recorded with its headers. The injection tests use
 * hostile-service.ts, which crafts prompt JSON instead.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';
import type { Prompt } from '../../src/types.js';
import { generatedPrompt } from './served-folder.js';

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

export interface HostileService {
  url: string;
  /** Every request, in order. */
  seen: Seen[];
  /** Requests whose path starts with `prefix`. */
  count(prefix: string): number;
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: string) => void;

/**
 * A prompt service that misbehaves on purpose, on a free loopback port, closed after the test
 * file. `handler` answers everything; it gets the server's own address for links to itself.
 */
export function hostileService(handler: Handler): () => Promise<HostileService> {
  const servers: Array<ReturnType<typeof createServer>> = [];
  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
  return async () => {
    const seen: Seen[] = [];
    let url = '';
    const server = createServer((req, res) => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
      handler(req, res, url);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { url, seen, count: (prefix) => seen.filter((s) => s.path.startsWith(prefix)).length };
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** `@acme/prompt-0000` at v1, a valid prompt, with `context` and any field replaced. */
export function acmePrompt(overrides: Partial<Prompt> = {}): Prompt {
  // The name answered carries the version answered, as the service's own answers do.
  const version = overrides.version ?? 'v1';
  return { ...generatedPrompt(0, 1, 'acme'), packageName: `@acme/prompt-0000:${version}`, ...overrides };
}

export const ACME_NAME = '@acme/prompt-0000';

/** Characters a terminal acts on: every C0 control but newline (and tab), DEL, C1. */
export const TERMINAL_CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
