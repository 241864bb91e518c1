/**
 * A run's totals are bounded (docs/security.md, "Limits"): prompts each under `promptBytes` and
 * context files each under `contextFileBytes` still stop at `limits.totalBytes` and
 * `limits.totalContextFileBytes`. A scripted loopback service, the built CLI, in both resolvers
 * (`sync` and `sync --frozen`).
 */

import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/limits.js';
import type { Prompt } from '../../src/types.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { hostileService, json } from '../helpers/hostile-network.js';
import { storeTree } from '../helpers/project.js';
import { generatedPrompt } from '../helpers/served-folder.js';

const { project } = disposables();
const KEY = `sk_live_${'TotalsKey'.padEnd(38, 't')}wxyz`;
const COUNT = 40;
const FILES = 12;
const FILE_BYTES = 256 * 1024;

/** `@acme/prompt-NNNN`, ~100 KB of text each (well under promptBytes), with FILES context files when asked. */
function bigPrompt(index: number, withFiles: boolean): Prompt {
  const prompt = generatedPrompt(index, 1, 'acme');
  const context = withFiles
    ? Array.from({ length: FILES }, (_, i) => ({
        id: `ctx_${index}_${i}`,
        type: 'file' as const,
        label: `file ${i}`,
        fileName: `f${i}.bin`,
        fileSize: FILE_BYTES,
        mimeType: 'application/octet-stream',
        createdAt: 1,
      }))
    : [];
  return { ...prompt, content: `${prompt.content}\n${'y'.repeat(100_000)}`, context };
}

/** Serves COUNT big prompts (and their files); counts the gets and the file bytes it sent. */
function bigService(withFiles: boolean) {
  const sent = { gets: 0, fileBytes: 0 };
  const service = hostileService((req, res, self) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      if (req.url === '/v1/prompts/get') {
        sent.gets++;
        const name = (JSON.parse(body) as { package_name: string }).package_name;
        const index = Number(name.match(/prompt-(\d+)/)![1]);
        json(res, 200, bigPrompt(index, withFiles));
      } else if (req.url!.startsWith('/api/v1/prompts/context/download-url')) {
        json(res, 200, { url: `${self}/bucket/f?sig=s`, expiresIn: 300 });
      } else if (req.url!.startsWith('/bucket/')) {
        sent.fileBytes += FILE_BYTES;
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(FILE_BYTES) });
        res.end(Buffer.alloc(FILE_BYTES, 0x61));
      } else {
        json(res, 404, { error: { code: 'not_found', message: 'no' } });
      }
    });
  });
  return { service, sent };
}

const names = (count: number) => Array.from({ length: count }, (_, i) => `@acme/prompt-${String(i).padStart(4, '0')}`);

describe('limits.totalBytes', () => {
  const big = bigService(false);

  it('40 prompts of ~100 KB against a total of 1,000,000 bytes: stopped, told once, nothing written', async () => {
    const { url } = await big.service();
    const dir = await project({ baseUrl: url, prompts: names(COUNT), concurrency: 2, limits: { totalBytes: 1_000_000 } });
    const run = await runBuiltCli(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } });
    expect(run.code).toBe(1);
    expect(run.stderr.match(/The prompts this run fetched total more than 1000000 bytes/g)).toHaveLength(1);
    expect(run.stderr).toContain(
      `over the limit of 1000000 (option "limits.totalBytes" in the config; default ${DEFAULT_LIMITS.totalBytes}); stopped there. Nothing was written.`,
    );
    expect(run.stderr).toContain('Raise limits.totalBytes in the config');
    expect(big.sent.gets).toBeLessThan(COUNT);
    expect(await storeTree(dir)).toEqual({});
  });

  it('the same prompts under the default total sync', async () => {
    const { url } = await big.service();
    const dir = await project({ baseUrl: url, prompts: names(COUNT) });
    const run = await runBuiltCli(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('limits.totalBytes');
  });

  it('sync --frozen counts the prompts it fetches too', async () => {
    const { url } = await big.service();
    const dir = await project({ baseUrl: url, prompts: names(COUNT) });
    expect((await runBuiltCli(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } })).code).toBe(0);
    await rm(path.join(dir, 'prompts'), { recursive: true });
    const config = JSON.parse(await readFile(path.join(dir, 'prompts.config.json'), 'utf8'));
    await writeFile(path.join(dir, 'prompts.config.json'), JSON.stringify({ ...config, limits: { totalBytes: 500_000 } }));
    const run = await runBuiltCli(['sync', '--frozen'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } });
    expect(run.code).toBe(1);
    expect(run.stderr.match(/The prompts this run fetched total more than 500000 bytes/g)).toHaveLength(1);
  });
});

describe('limits.totalContextFileBytes', () => {
  const big = bigService(true);

  it('12 files of 256 KiB against a total of 1 MiB: the download stops at the total, nothing written', async () => {
    const { url } = await big.service();
    const dir = await project({
      baseUrl: url,
      prompts: names(2),
      contextFiles: true,
      concurrency: 2,
      limits: { totalContextFileBytes: 1024 * 1024 },
    });
    const run = await runBuiltCli(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } });
    expect(run.code).toBe(1);
    expect(run.stderr.match(/The context files this run downloaded total more than 1048576 bytes/g)).toHaveLength(1);
    expect(run.stderr).toContain('(option "limits.totalContextFileBytes" in the config; default 536870912)');
    expect(run.stderr).not.toContain('sig=s');
    // Asked for: at most the total and the files already under way (concurrency 2), not all 24.
    expect(big.sent.fileBytes).toBeLessThanOrEqual(1024 * 1024 + 2 * FILE_BYTES);
    expect(await storeTree(dir)).toEqual({});
  });
});
