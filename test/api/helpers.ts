import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type RunningServer, type ServerOptions, startServer } from '../../src/server/index.js';
import type { Prompt } from '../../src/types.js';

const EXAMPLES_DIR = fileURLToPath(new URL('../../examples/workspace', import.meta.url));

/** Runs `body` against the real local service, and always stops it. */
export async function withService<T>(options: Omit<ServerOptions, 'dir'>, body: (server: RunningServer) => Promise<T>): Promise<T> {
  const server = await startServer({ dir: EXAMPLES_DIR, port: 0, host: '127.0.0.1', ...options });
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

/**
 * A tiny stand-in for cases the real service cannot be made to show (a cursor that does not
 * advance, a malformed body) and for a storage host that records what it was sent.
 */
export async function withTinyServer<T>(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  body: (url: string, server: Server) => Promise<T>,
): Promise<T> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, server);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A prompt without the one field that changes on every answer. */
export function stable(prompt: Prompt): Prompt {
  const { generatedAt: _ignored, ...metadata } = prompt.metadata;
  return { ...prompt, metadata: metadata as Prompt['metadata'] };
}

/** Everything an error exposes, to assert a secret appears nowhere in it. */
export function everythingOf(error: unknown): string {
  const e = error as Error & { hint?: string; cause?: unknown };
  return [e.message, e.hint, e.stack, String(e.cause ?? ''), JSON.stringify(e)].join('\n');
}

export async function caught(promise: Promise<unknown>): Promise<Error & { status?: number; code?: string; hint?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}
