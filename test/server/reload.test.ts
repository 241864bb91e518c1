/** The served folder changes while the server runs: visible after reload(), and on its own within about a second. */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeSnapshot } from '../../src/store/snapshot-format.js';
import type { Prompt } from '../../src/types.js';
import { call, eventually, getPrompt, serverPool } from './helpers.js';

const pool = serverPool();
afterAll(() => pool.closeAll());

const write = (file: string, text: string) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
};

describe('automatic reload', () => {
  it('picks up a new version, an edit in place, a new package and a removal without reload()', async () => {
    const dir = await pool.tempDir();
    const server = await pool.start({ dir });
    write(path.join(dir, 'acme/support-reply/v4.md'), 'Version four for {{customer_name}}\n');
    await eventually(async () => (await getPrompt(server, '@acme/support-reply')).body.version === 'v4');

    write(path.join(dir, 'acme/welcome/v2.md'), 'Edited in place\n');
    await eventually(async () => (await getPrompt(server, '@acme/welcome:v2')).body.content === 'Edited in place');

    write(path.join(dir, 'globex/brand-new/v1/content.md'), 'New {{thing}}');
    await eventually(async () => (await getPrompt(server, '@globex/brand-new')).status === 200);

    rmSync(path.join(dir, 'acme/default'), { recursive: true });
    await eventually(async () => (await getPrompt(server, '@acme/default')).status === 404);
    const names = (await call(server, '/v1/prompts?limit=100')).body.prompts.map((p: { packageName: string }) => p.packageName);
    expect(names).toContain('@globex/brand-new');
    expect(names).not.toContain('@acme/default');
  });

  it('keeps the last good state of a package that breaks, and warns', async () => {
    const dir = await pool.tempDir();
    const lines: string[] = [];
    const server = await pool.start({ dir, log: (line) => lines.push(line) });
    write(path.join(dir, 'acme/welcome/prompt.json'), '{ not json');
    await eventually(async () => lines.some((line) => line.startsWith('warning: @acme/welcome is served as it was')));
    expect((await getPrompt(server, '@acme/welcome')).body.title).toBe('Welcome');
    await expect(server.reload()).rejects.toThrow(/prompt\.json is not valid JSON/);
    expect((await getPrompt(server, '@acme/welcome')).status).toBe(200);
  });

  it('follows a snapshots folder written by renames, as the sync writes it', async () => {
    const dir = await pool.tempDir(false);
    const prompt = (version: string): Prompt => ({
      id: 'pmt_1',
      title: 'T',
      content: `content ${version}`,
      tags: [],
      version,
      workspaceSlug: 'acme',
      packageName: `@acme/p:${version}`,
      context: [],
      metadata: { createdAt: 1 },
    });
    write(path.join(dir, 'acme/p.json'), encodeSnapshot(prompt('v1')));
    const server = await pool.start({ dir });
    write(path.join(dir, 'acme/.p.json.tmp'), encodeSnapshot(prompt('v2')));
    renameSync(path.join(dir, 'acme/.p.json.tmp'), path.join(dir, 'acme/p.json'));
    await eventually(async () => (await getPrompt(server, '@acme/p')).body.version === 'v2');
  });
});

describe('reload()', () => {
  it('makes every change visible once it resolves', async () => {
    const dir = await pool.tempDir();
    const server = await pool.start({ dir });
    write(path.join(dir, 'acme/onboarding/v5.md'), 'five');
    write(path.join(dir, 'newco/hello/v1.md'), 'hello');
    await server.reload();
    expect((await getPrompt(server, '@acme/onboarding')).body.content).toBe('five');
    expect((await getPrompt(server, '@newco/hello')).body.content).toBe('hello');
  });
});
