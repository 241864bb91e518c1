/**
 * Issue 30, item 11: DNS rebinding. A web page on a name of the attacker's, re-pointed at
 * 127.0.0.1, can call `promptlock serve` from the victim's browser with the documented test key;
 * its requests carry the attacker's name in `Host`. The service answers only requests addressed to
 * it: loopback names, IP addresses, the address it is bound to, and names allowed by option.
 */
import { request } from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { disposables } from '../helpers/disposables.js';

const { serve } = disposables();
const WORKSPACE = path.resolve('examples/workspace');

/** GET /v1/prompts with this Host header; resolves to the status and the body. */
function list(port: number, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/v1/prompts', headers: { host, authorization: `Bearer ${LOCAL_TEST_KEY}` } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the Host header', () => {
  it('a name that is not this service is refused, whatever its port; nothing is read', async () => {
    const server = await serve({ dir: WORKSPACE });
    for (const host of [`rebind.evil.example:${server.port}`, 'rebind.evil.example', `localhost.evil.example:${server.port}`]) {
      const answer = await list(server.port, host);
      expect(answer.status, host).toBe(403);
      expect(answer.body).not.toContain('packageName');
      expect(JSON.parse(answer.body).error.message).toContain('is not a name of this service');
    }
  });

  it('loopback names, IP addresses and the names allowed by option are answered', async () => {
    const server = await serve({ dir: WORKSPACE, allowedHosts: ['prompts.test'] });
    for (const host of [
      `127.0.0.1:${server.port}`,
      `localhost:${server.port}`,
      'app.localhost',
      `[::1]:${server.port}`,
      '10.0.0.5',
      'PROMPTS.test:80',
    ]) {
      expect((await list(server.port, host)).status, host).toBe(200);
    }
    expect((await list(server.port, 'other.test')).status).toBe(403);
  });
});
