/**
 * Findings 3 (downloads) and 9 (SSRF). A context file is never larger than
 * limits.contextFileBytes, whatever `fileSize` the service announces; the download address must be
 * https, or plain http to a loopback host, and is refused before anything connects; the key never
 * goes to the download host.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createClient, type ClientEvent } from '../../src/api/index.js';
import { DEFAULT_LIMITS } from '../../src/limits.js';
import { caught } from '../api/helpers.js';
import { runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { storeTree } from '../helpers/project.js';
import { ACME_NAME, acmePrompt, hostileService, json } from './hostile-network.js';

const { project } = disposables();
const KEY = `sk_live_${'DownloadKey'.padEnd(38, 'q')}wxyz`;
const MB = 1024 * 1024;

/** Writes 64 KiB chunks until the client goes away; reports how much was sent. */
function endlessBody(res: ServerResponse, sent: { bytes: number }): void {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  const pump = () => {
    while (!res.destroyed) {
      sent.bytes += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
  };
  res.on('close', () => res.destroy());
  pump();
}

/** A service whose one prompt has one context file, at `downloadUrl` (relative: on itself). */
function fileService(fileSize: number | null, downloadUrl: string, sent = { bytes: 0 }) {
  return hostileService((req, res, self) => {
    if (req.url === '/v1/prompts/get') {
      json(res, 200, acmePrompt({
        context: [{ id: 'ctx_big', type: 'file', label: 'big', fileName: 'big.bin', fileSize, mimeType: 'application/octet-stream', createdAt: 1 }],
      }));
    } else if (req.url!.startsWith('/api/v1/prompts/context/download-url')) {
      json(res, 200, { url: downloadUrl.startsWith('/') ? `${self}${downloadUrl}` : downloadUrl, expiresIn: 300 });
    } else if (req.url!.startsWith('/bucket/')) {
      endlessBody(res, sent);
    } else {
      json(res, 404, { error: { code: 'not_found', message: 'no' } });
    }
  });
}

async function syncFiles(url: string, limits: Record<string, number> = {}) {
  const dir = await project({ baseUrl: url, prompts: [ACME_NAME], contextFiles: true, limits });
  const run = await runBuiltCli(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } });
  return { dir, run };
}

describe('a context file larger than the limit', () => {
  const announcedHuge = fileService(10 * 1024 ** 3, '/bucket/f?sig=s');
  const sent = { bytes: 0 };
  const unannounced = fileService(null, '/bucket/f?sig=s', sent);
  const understated = fileService(1000, '/bucket/f?sig=s');

  it('announced as 10 GB: refused before the download, naming the limit; nothing written', async () => {
    const service = await announcedHuge();
    const { dir, run } = await syncFiles(service.url, { contextFileBytes: MB });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`is announced as ${10 * 1024 ** 3} bytes, more than the limit ${MB} (option "limits.contextFileBytes" in the config; default ${DEFAULT_LIMITS.contextFileBytes})`);
    expect(service.count('/bucket/')).toBe(0);
    expect(await storeTree(dir)).toEqual({});
  });

  it('of unknown size, streaming forever: cut off at limits.contextFileBytes, not retried, nothing written', async () => {
    const service = await unannounced();
    const { dir, run } = await syncFiles(service.url, { contextFileBytes: MB });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`is larger than ${MB} bytes, the limit ${MB} (option "limits.contextFileBytes" in the config`);
    expect(run.stderr).not.toContain('sig=s');
    expect(service.count('/bucket/')).toBe(1);
    // The client stopped reading: the server could only fill the socket buffers beyond the cap.
    expect(sent.bytes).toBeLessThan(32 * MB);
    expect(await storeTree(dir)).toEqual({});
  });

  it('announced small but streaming forever: cut off at the announced size', async () => {
    const service = await understated();
    const client = createClient({ baseUrl: service.url });
    try {
      const error = await caught(client.downloadFile(`${service.url}/bucket/f?sig=s`, { maxBytes: 100 * MB, expectedSize: 1000 }));
      expect(error.message).toBe(
        `The answer to GET ${service.url}/bucket/f while downloading ${service.url}/bucket/f is larger than 1000 bytes, the size the prompt announces for this file; stopped reading there.`,
      );
      // A caller's maxBytes above the limit does not raise it either.
      const capped = await caught(client.downloadFile(`${service.url}/bucket/f?sig=s`, { maxBytes: 10 * 1024 ** 3 }));
      expect(capped.message).toContain(`larger than ${DEFAULT_LIMITS.contextFileBytes} bytes, the limit ${DEFAULT_LIMITS.contextFileBytes}`);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('download addresses (SSRF)', () => {
  const lan = fileService(10, 'http://10.0.0.1/bucket/f?sig=s');

  it.each([
    ['http://10.0.0.1/bucket/f?sig=s', 'plain http:// is fetched only from a loopback host, not 10.0.0.1'],
    ['http://example.com/bucket/f', 'plain http:// is fetched only from a loopback host, not example.com'],
    ['http://169.254.169.254/latest/meta-data', 'plain http:// is fetched only from a loopback host, not 169.254.169.254'],
    ['file:///etc/passwd', 'file: addresses are not fetched'],
    ['ftp://127.0.0.1/f', 'ftp: addresses are not fetched'],
    ['https://user:pw@storage.example/f', 'credentials in the address are not accepted'],
  ])('%s is refused before any connection', async (url, why) => {
    const events: ClientEvent[] = [];
    const client = createClient({ baseUrl: 'http://127.0.0.1:9', onEvent: (e) => events.push(e) });
    try {
      const error = await caught(client.downloadFile(url, { maxBytes: 100 }));
      expect(error.message).toContain(`: ${why}. Nothing was fetched.`);
      expect(error.message).not.toContain('sig=s');
      // Nothing was sent anywhere: no request event, no request counted.
      expect(events).toEqual([]);
      expect(client.stats.requests).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('a sync whose service points a download at http://10.0.0.1/ fails clearly and writes nothing', async () => {
    const service = await lan();
    const { dir, run } = await syncFiles(service.url);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('The service gave the download address http://10.0.0.1/bucket/f for a context file: plain http:// is fetched only from a loopback host, not 10.0.0.1. Nothing was fetched.');
    expect(await storeTree(dir)).toEqual({});
  });

  it('the download host never receives the API key', async () => {
    const storage = await hostileService((_req, res) => {
      res.writeHead(200, { 'content-length': '5' });
      res.end('hello');
    })();
    const service = await fileService(5, `${storage.url}/bucket/f?sig=s`)();
    const { run } = await syncFiles(service.url);
    expect(run.code).toBe(0);
    expect(storage.seen).toHaveLength(1);
    expect(storage.seen[0]!.headers.authorization).toBeUndefined();
    expect(JSON.stringify(storage.seen[0]!.headers)).not.toContain(KEY.slice(8, 30));
    // The service itself did get it.
    expect(service.seen.find((s) => s.path === '/v1/prompts/get')!.headers.authorization).toBe(`Bearer ${KEY}`);
  });
});
