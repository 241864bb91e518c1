import { mkdtempSync, rmSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LOCAL_TEST_KEY, type RunningServer, type ServerOptions, startServer } from '../../src/server/index.js';

export const EXAMPLES = path.resolve(import.meta.dirname, '../../examples/workspace');
export const KEY = LOCAL_TEST_KEY;

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** One request to `server`; the body is parsed when it is JSON. */
export async function call(
  server: { url: string },
  pathname: string,
  init: { method?: string; key?: string | null; json?: unknown; body?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  const key = init.key === undefined ? KEY : init.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(`${server.url}${pathname}`, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

export const getPrompt = (server: { url: string }, packageName: string, variables?: Record<string, string>, key?: string | null) =>
  call(server, '/v1/prompts/get', { json: variables ? { package_name: packageName, variables } : { package_name: packageName }, key });

/** Starts servers and stops every one of them after the file's tests. */
export function serverPool() {
  const running: RunningServer[] = [];
  const temps: string[] = [];
  return {
    async start(options: Partial<ServerOptions> = {}): Promise<RunningServer> {
      const server = await startServer({ dir: EXAMPLES, ...options });
      running.push(server);
      return server;
    },
    /** A private copy of the sample workspace (or an empty folder) that a test may change. */
    async tempDir(copyExamples = true): Promise<string> {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'promptlock-serve-'));
      temps.push(dir);
      if (copyExamples) await cp(EXAMPLES, dir, { recursive: true });
      return dir;
    },
    async closeAll(): Promise<void> {
      await Promise.all(running.splice(0).map((server) => server.close()));
      for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until `check` holds, polling; fails after `timeoutMs` (generous: the machine is shared). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
