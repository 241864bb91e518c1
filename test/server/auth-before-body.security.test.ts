/**
 * `serve` checks the key before it reads a request body: a caller without a valid key gets its
 * 401 while its upload is still under way, and the service holds none of it. Requests are written
 * by hand on raw sockets, so a body can be announced and never sent.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { KEY, serverPool } from './helpers.js';

const pool = serverPool();
const sockets: Socket[] = [];
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await pool.closeAll();
});

/**
 * Sends the head of a POST announcing `length` bytes and the first `sent` of them, then waits up to
 * `waitMs` for an answer: its status line, or undefined when none came (the service is waiting).
 */
function partialPost(server: RunningServer, path: string, auth: string | undefined, length: number, sent: number, waitMs: number) {
  const { port, hostname } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  sockets.push(socket);
  const head = [`POST ${path} HTTP/1.1`, `Host: ${hostname}`, 'Content-Type: application/json', `Content-Length: ${length}`];
  if (auth) head.push(`Authorization: Bearer ${auth}`);
  socket.write(`${head.join('\r\n')}\r\n\r\n`);
  socket.write(Buffer.alloc(sent, 0x20));
  return new Promise<{ status: string | undefined; closed: boolean }>((resolve) => {
    let text = '';
    let closed = false;
    const done = () => {
      clearTimeout(timer);
      resolve({ status: /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1], closed });
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      done();
    });
  });
}

describe('serve reads a request body only after the key', () => {
  it.each([
    ['no key', undefined],
    ['a wrong key', `sk_test_${'x'.repeat(44)}`],
  ])('with %s: 401 at once while the body is still announced, and the connection closes', async (_title, auth) => {
    const server = await pool.start();
    const answer = await partialPost(server, '/v1/prompts/get', auth, 1_000_000, 1_000, 5_000);
    expect(answer).toEqual({ status: '401', closed: true });
  });

  it('an unknown route answers 404 without waiting for the body', async () => {
    const server = await pool.start();
    expect((await partialPost(server, '/v1/nope', undefined, 1_000_000, 10, 5_000)).status).toBe('404');
  });

  it('with the key, the body is read first: no answer until it is complete', async () => {
    const server = await pool.start();
    expect((await partialPost(server, '/v1/prompts/get', KEY, 1_000, 10, 500)).status).toBeUndefined();
  });

  it('400 unauthenticated uploads in flight at once are all answered 401 without their bodies', async () => {
    // A limit above 400 a minute, so each is answered for its key, not its rate.
    const server = await pool.start({ rateLimits: { unauthenticated: { perMinute: 1_000, perHour: 10_000 } } });
    const answers = await Promise.all(
      Array.from({ length: 400 }, () => partialPost(server, '/v1/prompts/get', undefined, 1_000_000, 100, 10_000)),
    );
    expect(answers.filter((answer) => answer.status === '401')).toHaveLength(400);
  });
});
