/**
 * Findings 3 (downloads) and 9 (SSRF). A context file is never larger than
 * limits.contextFileBytes, whatever `fileSize` the service announces; the download address must be
 * https, or plain http to a loopback host, and is refused before anything connects; the key never
 * goes to the download host.
 */

import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ClientEvent, clientOptionsFor, createClient } from '../../src/api/index.js';
import { callSync, loadProject } from '../../src/library.js';
import { DEFAULT_LIMITS } from '../../src/limits.js';
import { caught } from '../api/helpers.js';
import { runBuiltCli, runCliInProcess, startBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { ACME_NAME, acmePrompt, hostileService, json } from '../helpers/hostile-network.js';
import { storeTree } from '../helpers/project.js';

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
      json(
        res,
        200,
        acmePrompt({
          context: [
            {
              id: 'ctx_big',
              type: 'file',
              label: 'big',
              fileName: 'big.bin',
              fileSize,
              mimeType: 'application/octet-stream',
              createdAt: 1,
            },
          ],
        }),
      );
    } else if (req.url!.startsWith('/api/v1/prompts/context/download-url')) {
      json(res, 200, { url: downloadUrl.startsWith('/') ? `${self}${downloadUrl}` : downloadUrl, expiresIn: 300 });
    } else if (req.url!.startsWith('/bucket/')) {
      endlessBody(res, sent);
    } else {
      json(res, 404, { error: { code: 'not_found', message: 'no' } });
    }
  });
}

/** `promptlock sync` in this process: only the peak-memory and the kill cases need a process of their own. */
const syncIn = (dir: string) => runCliInProcess(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } });

async function syncFiles(url: string, limits: Record<string, number> = {}) {
  const dir = await project({ baseUrl: url, prompts: [ACME_NAME], contextFiles: true, limits });
  return { dir, run: await syncIn(dir) };
}

/**
 * The library's sync as the CLI runs it, its client retrying as many times as the CLI's but after
 * 1 ms backoffs instead of seconds; resolves with the error it failed with.
 */
async function syncRetryingFast(dir: string): Promise<Error | undefined> {
  const options = { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } };
  const config = await loadProject(options);
  const connect = async () => createClient({ ...clientOptionsFor(config), backoffBaseMs: 1 });
  return callSync(options, { config, connect }).then(
    () => undefined,
    (error: unknown) => error as Error,
  );
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
    expect(run.stderr).toContain(
      `is announced as ${10 * 1024 ** 3} bytes, more than the limit ${MB} (option "limits.contextFileBytes" in the config; default ${DEFAULT_LIMITS.contextFileBytes})`,
    );
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
    // The partial download was removed, not left in the work folder.
    expect(await workFiles(dir)).toEqual([]);
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
      expect(capped.message).toContain(
        `larger than ${DEFAULT_LIMITS.contextFileBytes} bytes, the limit ${DEFAULT_LIMITS.contextFileBytes}`,
      );
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
    expect(run.stderr).toContain(
      'The service gave the download address http://10.0.0.1/bucket/f for a context file: plain http:// is fetched only from a loopback host, not 10.0.0.1. Nothing was fetched.',
    );
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

/** 64 KiB of a pattern that differs from chunk to chunk, so a misplaced chunk changes the digest. */
const patternChunk = (index: number) => Buffer.alloc(64 * 1024, `chunk ${index} of a large context file; `);

/** Serves `size` bytes of the pattern, chunk by chunk as the client reads them; `failAt` cuts the connection after that many bytes. */
function patternBody(res: ServerResponse, size: number, failAt?: number): void {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(size) });
  let sent = 0;
  let index = 0;
  const pump = () => {
    while (sent < size && !res.destroyed) {
      if (failAt !== undefined && sent >= failAt) return void res.destroy();
      const chunk = patternChunk(index++).subarray(0, Math.min(64 * 1024, size - sent));
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (sent >= size) res.end();
  };
  pump();
}

function patternIntegrity(size: number): string {
  const hash = createHash('sha256');
  for (let sent = 0, index = 0; sent < size; sent += 64 * 1024)
    hash.update(patternChunk(index++).subarray(0, Math.min(64 * 1024, size - sent)));
  return `sha256-${hash.digest('base64')}`;
}

/** A service whose prompt's one context file is `size()` bytes of the pattern (at version `v<revision>`). */
function patternService(options: { size: () => number; revision?: () => number; failAt?: () => number | undefined; hold?: () => boolean }) {
  return hostileService((req, res, self) => {
    if (req.url === '/v1/prompts/get') {
      json(
        res,
        200,
        acmePrompt({
          version: `v${options.revision?.() ?? 1}`,
          context: [
            {
              id: 'ctx_big',
              type: 'file',
              label: 'big',
              fileName: 'big.bin',
              fileSize: options.size(),
              mimeType: 'application/octet-stream',
              createdAt: 1,
            },
          ],
        }),
      );
    } else if (req.url!.startsWith('/api/v1/prompts/context/download-url')) {
      json(res, 200, { url: `${self}/bucket/big?sig=s`, expiresIn: 300 });
    } else if (req.url!.startsWith('/bucket/')) {
      if (options.hold?.()) {
        // Half the file, then nothing: the download stays under way until the client is killed.
        res.writeHead(200, { 'content-length': String(options.size()) });
        res.write(Buffer.alloc(Math.floor(options.size() / 2), 0x62));
        return;
      }
      patternBody(res, options.size(), options.failAt?.());
    } else {
      json(res, 404, { error: { code: 'not_found', message: 'no' } });
    }
  });
}

const workFiles = async (dir: string) =>
  (await readdir(path.join(dir, '.promptlock')).catch(() => [] as string[])).filter((name) => name !== '.gitignore');

describe('context files stream to disk', () => {
  const size = { bytes: 1024 };
  const big = patternService({ size: () => size.bytes });
  let preloadDir: string;
  afterAll(async () => {
    if (preloadDir) await rm(preloadDir, { recursive: true, force: true });
  });

  /** Syncs with the built CLI and returns its peak resident memory in bytes (getrusage's maxrss). */
  async function syncMeasured(url: string) {
    preloadDir ??= await mkdtemp(path.join(tmpdir(), 'promptlock-rss-'));
    const preload = path.join(preloadDir, 'peak-rss.mjs');
    await writeFile(
      preload,
      "import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => writeFileSync(process.env.PEAK_RSS_FILE, String(process.resourceUsage().maxRSS * 1024)));\n",
    );
    const out = path.join(preloadDir, `rss-${Date.now()}-${Math.random()}`);
    const measured = await project({ baseUrl: url, prompts: [ACME_NAME], contextFiles: true });
    const run = await runBuiltCli(['sync'], {
      cwd: measured,
      env: { PROMPTLOCK_API_KEY: KEY, NODE_OPTIONS: `--import=${preload}`, PEAK_RSS_FILE: out },
    });
    expect(run.code).toBe(0);
    return { dir: measured, peak: Number(await readFile(out, 'utf8')) };
  }

  it('a 96 MiB file: the peak memory of the sync grows less than half the file, and the stored file matches its integrity', async () => {
    const service = await big();
    size.bytes = 1024;
    const small = await syncMeasured(service.url);
    size.bytes = 96 * MB;
    const large = await syncMeasured(service.url);
    const growth = large.peak - small.peak;
    console.log(
      `peak RSS: ${(small.peak / MB).toFixed(1)} MiB with a 1 KiB file, ${(large.peak / MB).toFixed(1)} MiB with a 96 MiB file (growth ${(growth / MB).toFixed(1)} MiB)`,
    );
    // Streamed, the growth is the chunks awaiting the garbage collector (about 32 MiB, whatever the
    // file's size); held in memory, it was more than the file (twice it while joining chunks).
    expect(growth).toBeLessThan(size.bytes / 2);
    const lock = JSON.parse(await readFile(path.join(large.dir, 'prompts.lock.json'), 'utf8'));
    const locked = lock.prompts[ACME_NAME].files.ctx_big;
    expect(locked).toEqual({ path: 'acme/prompt-0000.files/big.bin', size: 96 * MB, integrity: patternIntegrity(96 * MB) });
    const stored = createHash('sha256')
      .update(await readFile(path.join(large.dir, 'prompts/acme/prompt-0000.files/big.bin')))
      .digest('base64');
    expect(`sha256-${stored}`).toBe(locked.integrity);
    expect(await workFiles(large.dir)).toEqual([]);
    // Unchanged on the next run: nothing downloaded is written again, nothing is left staged.
    const count = service.count('/bucket/');
    const rerun = await syncIn(large.dir);
    expect(rerun.code).toBe(0);
    expect(service.count('/bucket/')).toBe(count);
    expect(await workFiles(large.dir)).toEqual([]);
  }, 120_000);

  it('a download cut off mid-way (every retry): the sync fails, the previous files intact, no staged file left', async () => {
    const state = { revision: 1, failAt: undefined as number | undefined };
    const service = await patternService({
      size: () => 4 * MB + state.revision,
      revision: () => state.revision,
      failAt: () => state.failAt,
    })();
    const { dir, run } = await syncFiles(service.url);
    expect(run.code).toBe(0);
    const before = await storeTree(dir);
    state.revision = 2;
    state.failAt = 2 * MB;
    const downloads = service.count('/bucket/');
    const failed = await syncRetryingFast(dir);
    expect(failed?.message).toContain('downloading');
    // Every attempt was cut off: the first and each of the retries.
    expect(service.count('/bucket/') - downloads).toBeGreaterThan(1);
    expect(await storeTree(dir)).toEqual(before);
    expect(await workFiles(dir)).toEqual([]);
  }, 120_000);

  it('a sync killed mid-download: the previous files intact; the next run removes the partial file and completes', async () => {
    const state = { revision: 1, hold: false };
    const service = await patternService({ size: () => 4 * MB + state.revision, revision: () => state.revision, hold: () => state.hold })();
    const { dir, run } = await syncFiles(service.url);
    expect(run.code).toBe(0);
    const before = await storeTree(dir);
    state.revision = 2;
    state.hold = true;
    const child = startBuiltCli(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } });
    let gone = false;
    const exited = child.exited.then(() => (gone = true));
    try {
      // Until the partial file holds the half the service sent (bounded: the test's own timeout).
      while (!gone) {
        const partial = (await workFiles(dir)).filter((name) => name.endsWith('.part'));
        if (partial.length === 1 && (await readFile(path.join(dir, '.promptlock', partial[0]!))).length === Math.floor((4 * MB + 2) / 2))
          break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(gone).toBe(false); // it was killed, it did not finish
    } finally {
      await child.stop('SIGKILL');
      await exited;
    }
    expect(await storeTree(dir)).toEqual(before);
    expect((await workFiles(dir)).filter((name) => name.endsWith('.part'))).toHaveLength(1);
    state.hold = false;
    const next = await syncIn(dir);
    expect(next.code).toBe(0);
    expect(await workFiles(dir)).toEqual([]);
    const lock = JSON.parse(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8'));
    expect(lock.prompts[ACME_NAME].files.ctx_big.integrity).toBe(patternIntegrity(4 * MB + 2));
  }, 120_000);
});
