/**
 * Where a download address may point, and who is named when it fails (docs/security.md,
 * "Downloads"). A private or link-local literal address is refused before anything connects, even
 * over https; only a literal loopback address or `localhost` counts as loopback (`*.localhost` is
 * a name DNS resolves anywhere) for downloads, a plain-http `baseUrl` and `serve --host`; a failed
 * download names the file's host, not the service.
 */

import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ClientEvent, createClient } from '../../src/api/index.js';
import { isPrivateAddress } from '../../src/config/base-url.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';
import { caught } from './helpers.js';

const { defer } = disposables();
const KEY = `sk_live_${'AddressKey'.padEnd(38, 'a')}wxyz`;

/** A loopback port where nothing listens (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('download addresses in private networks', () => {
  it.each([
    ['https://169.254.169.254/latest/meta-data/iam', '169.254.169.254'],
    ['https://10.1.2.3/bucket/f?sig=s', '10.1.2.3'],
    ['https://10.1/bucket/f', '10.0.0.1'],
    ['https://172.16.0.9/f', '172.16.0.9'],
    ['https://172.31.255.254/f', '172.31.255.254'],
    ['https://192.168.1.1/f', '192.168.1.1'],
    ['https://100.64.0.1/f', '100.64.0.1'],
    ['https://0.0.0.0/f', '0.0.0.0'],
    ['https://[fd00::1]/f', '[fd00::1]'],
    ['https://[fe80::1]/f', '[fe80::1]'],
    ['https://[::ffff:169.254.169.254]/f', '[::ffff:a9fe:a9fe]'],
    ['http://storage.localhost:9/f', 'plain http'],
  ])('%s is refused before any connection', async (url, named) => {
    const events: ClientEvent[] = [];
    const client = createClient({ baseUrl: 'http://127.0.0.1:9', onEvent: (event) => events.push(event) });
    try {
      const error = await caught(client.downloadFile(url, { maxBytes: 100 }));
      expect(error.message).toMatch(/^The service gave the download address .* for a context file: .*\. Nothing was fetched\.$/);
      expect(error.message).toContain(named);
      expect(error.message).not.toContain('sig=s');
      expect(events).toEqual([]);
      expect(client.stats.requests).toBe(0);
    } finally {
      await client.close();
    }
  });

  it.each([
    ['172.32.0.1', false],
    ['8.8.8.8', false],
    ['[2001:db8::1]', false],
    ['127.0.0.1', false],
    ['storage.example', false],
    ['172.16.0.1', true],
    ['[::ffff:a00:1]', true],
  ])('%s private: %s (no connection is tried to tell)', (host, privateAddress) => {
    expect(isPrivateAddress(host)).toBe(privateAddress);
  });
});

describe('this machine, for a service that is not on it (issue 30, item 9)', () => {
  it.each([
    ['https://127.0.0.1:9/f?sig=s', '127.0.0.1'],
    ['http://127.0.0.1:9/f', '127.0.0.1'],
    ['http://localhost:9/f', 'localhost'],
    ['https://[::1]:9/f', '[::1]'],
  ])('%s from a remote service is refused before any connection', async (url, named) => {
    const client = createClient({ baseUrl: 'https://api.example.invalid', apiKey: KEY });
    try {
      const error = await caught(client.downloadFile(url, { maxBytes: 100 }));
      expect(error.message).toBe(
        `The service gave the download address ${url.split('?')[0]} for a context file: ${named} is this machine, and the service at https://api.example.invalid is not on it. Nothing was fetched.`,
      );
      expect(client.stats.requests).toBe(0);
    } finally {
      await client.close();
    }
  });
});

describe('only literal loopback addresses and localhost are loopback', () => {
  it('a plain-http baseUrl on a *.localhost name is refused', () => {
    expect(() => createClient({ baseUrl: 'http://app.localhost:4010', apiKey: KEY })).toThrow(
      'Refusing the prompt service address "http://app.localhost:4010" (key sk_live…wxyz): plain http:// would send the API key unencrypted to app.localhost.',
    );
    for (const baseUrl of ['http://localhost:4010', 'http://127.0.0.2:4010', 'http://[::1]:4010']) {
      expect(() => createClient({ baseUrl, apiKey: KEY })).not.toThrow();
    }
  });

  it('`serve --host evil.localhost` with the public test key is refused like any other host', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-serve-host-'));
    defer(() => removeDir(dir));
    const run = await runBuiltCli(['serve', '--host', 'evil.localhost', '--port', '0', '--dir', dir], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Refusing to serve on evil.localhost with the public test key');
  });
});

describe('a failed download names the file host', () => {
  it('refused at the file host: its origin is named, not the prompt service', async () => {
    const port = await closedPort();
    const client = createClient({ baseUrl: 'http://127.0.0.1:9', retries: 1, backoffBaseMs: 1 });
    try {
      const error = await caught(client.downloadFile(`http://127.0.0.1:${port}/bucket/f?sig=secret`, { maxBytes: 100 }));
      expect(error.message).toBe(`Could not reach the file host http://127.0.0.1:${port}: ECONNREFUSED.`);
      expect(error.message).not.toContain('prompt service');
      expect(`${error.message} ${error.hint}`).not.toContain('secret');
    } finally {
      await client.close();
    }
  });

  it('a file host that does not answer in time is named too', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    defer(async () => {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const origin = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const client = createClient({ baseUrl: 'http://127.0.0.1:9', retries: 0, timeoutMs: 200 });
    try {
      const error = await caught(client.downloadFile(`${origin}/f`, { maxBytes: 100 }));
      expect(error.message).toBe(`The file host ${origin} did not answer within 200 ms while downloading ${origin}/f (1 attempt).`);
    } finally {
      await client.close();
    }
  });
});
