/**
 * `serve` checks links when it loads a folder, and again when it reads a context file for a
 * download: a link swapped in after the load (for the file, or for a folder on its way) is refused,
 * never followed out of the served folder.
 */
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { call, getPrompt, serverPool } from './helpers.js';

const pool = serverPool();
const outside: string[] = [];
afterAll(async () => {
  await pool.closeAll();
  for (const dir of outside) await rm(dir, { recursive: true, force: true });
});

const SECRET = 'secret outside the served folder\n';
let server: RunningServer;
let served: string;
let secretDir: string;

beforeEach(async () => {
  served = await pool.tempDir();
  server = await pool.start({ dir: served });
  secretDir = await mkdtemp(path.join(tmpdir(), 'promptlock-outside-'));
  outside.push(secretDir);
  await writeFile(path.join(secretDir, 'pricing.csv'), SECRET);
});

/** The signed download URL of @globex/sales-email's pricing.csv, answered before any swap. */
async function pricingUrl(): Promise<string> {
  const { body } = await getPrompt(server, '@globex/sales-email');
  const item = body.context.find((c: { fileName?: string }) => c.fileName === 'pricing.csv');
  const answer = await call(server, `/api/v1/prompts/context/download-url?contextId=${encodeURIComponent(item.id)}`);
  expect(answer.status).toBe(200);
  return answer.body.url as string;
}

describe('a context file swapped for a link after serve loaded it', () => {
  const files = () => path.join(served, 'globex/sales-email/files');

  it('serves the file while it is one', async () => {
    const download = await fetch(await pricingUrl());
    expect(download.status).toBe(200);
    expect(await download.text()).not.toContain(SECRET);
  });

  it('refuses the file replaced by a link to a file outside (403), not its bytes', async () => {
    const url = await pricingUrl();
    await rm(path.join(files(), 'pricing.csv'));
    await symlink(path.join(secretDir, 'pricing.csv'), path.join(files(), 'pricing.csv'));
    const download = await fetch(url);
    const text = await download.text();
    expect(text).not.toContain(SECRET);
    expect(download.status).toBe(403);
    expect(JSON.parse(text).error.message).toContain('a symbolic link replaced it in the served folder');
  });

  it('refuses the file when a folder on its way was replaced by a link to a folder outside', async () => {
    const url = await pricingUrl();
    await rename(files(), path.join(secretDir, 'moved-away'));
    await symlink(secretDir, files());
    const download = await fetch(url);
    const text = await download.text();
    expect(text).not.toContain(SECRET);
    expect(download.status).toBe(403);
  });

  it('answers 404 when the file is gone', async () => {
    const url = await pricingUrl();
    await rm(path.join(files(), 'pricing.csv'));
    await mkdir(path.join(files(), 'unrelated'), { recursive: true });
    expect((await fetch(url)).status).toBe(404);
  });
});
