/**
 * Issue 28, build item 1: a failure never removes a prompt. Only a 404 of the prompt's own get
 * can mean "no published version"; a 404 of a file endpoint (the download address, or the signed
 * file itself) is an error of that file, naming it and its host, and the run fails with nothing
 * written. Before, a glob sync skipped the prompt with exit 0 and a prompt locked before left the
 * lockfile and the module, and `check` passed.
 */
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { storeTree } from '../helpers/project.js';
import { type WireChange, wireProxy } from '../helpers/wire-proxy.js';

const { serve, project, folder } = disposables();
const KEY = `sk_live_${'FileErrorsKey'.padEnd(38, 'f')}wxyz`;

/** A served workspace: @acme/menu has a context file, @acme/cafe none. */
async function service(): Promise<{ dir: string; server: RunningServer }> {
  const dir = await folder({
    'acme/cafe/v1.md': 'Un café, {{name}}.',
    'acme/menu/prompt.json': JSON.stringify({ title: 'Menu', context: [{ type: 'file', label: 'Carte', file: 'files/carte.txt' }] }),
    'acme/menu/files/carte.txt': 'Crêpes, café, thé\n',
    'acme/menu/v1.md': 'Voici la carte, {{name}}.',
  });
  return { dir, server: await serve({ dir, keys: [{ key: KEY }] }) };
}

const run = (args: string[], dir: string) => runCliInProcess(args, { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY }, timeoutMs: 30_000 });

/** The download address endpoint answers 404 (the file deleted on the service after the get). */
const downloadAddress404 = (request: { url: string }): WireChange | undefined =>
  request.url.includes('/api/v1/prompts/context/download-url')
    ? { status: 404, body: { error: { code: 'not_found', message: 'Context file not found.' } } }
    : undefined;

describe.each([
  ['the download address endpoint answers 404', 'download-url'],
  ['the signed file address answers 404 (the file removed from the service)', 'file'],
])('%s', (_name, where) => {
  async function setUp() {
    const { dir: served, server } = await service();
    let broken = false;
    const proxy = await wireProxy(server.url, {
      change: (request) => (broken && where === 'download-url' ? downloadAddress404(request) : undefined),
    });
    const breakFile = async () => {
      broken = true;
      if (where === 'file') await rm(path.join(served, 'acme/menu/files/carte.txt'));
    };
    return { served, server, proxy, breakFile };
  }

  it('a first glob sync fails naming the file and its host; nothing written, nothing skipped', async () => {
    const { proxy, breakFile } = await setUp();
    await breakFile();
    const dir = await project({ baseUrl: proxy.url, prompts: ['@acme/*'], contextFiles: true });
    const sync = await run(['sync'], dir);
    expect(sync.code).toBe(1);
    expect(sync.stderr).toMatch(/The context file "carte\.txt" \(ctx_\w+\) of @acme\/menu could not be fetched: /);
    expect(sync.stderr).toMatch(
      where === 'download-url'
        ? new RegExp(`Context file ctx_\\w+ was not found \\(404\\) at ${proxy.url}`)
        : /The context file at http:\/\/127\.0\.0\.1:\d+\/files\/ctx_\w+ was not found \(404\)/,
    );
    expect(sync.stderr).not.toContain('skipped');
    expect(sync.stderr).not.toContain('no published version');
    expect(await storeTree(dir)).toEqual({});
  });

  it('a second sync, after the prompt changed: the locked prompt stays, with its files; check still passes', async () => {
    const { served, server, proxy, breakFile } = await setUp();
    const dir = await project({ baseUrl: proxy.url, prompts: ['@acme/*'], contextFiles: true });
    expect((await run(['sync'], dir)).code).toBe(0);
    const before = await storeTree(dir);
    expect(Object.keys(before)).toContain('prompts/acme/menu.files/carte.txt');
    // A new version with a new file: the locked file cannot be reused.
    await writeFile(path.join(served, 'acme/menu/v2.md'), 'Voici la nouvelle carte, {{name}}.');
    await writeFile(path.join(served, 'acme/menu/files/carte.txt'), 'Crêpes, café, thé, chocolat\n');
    await server.reload();
    await breakFile();
    const sync = await run(['sync'], dir);
    expect(sync.code).toBe(1);
    expect(sync.stderr).toContain('of @acme/menu could not be fetched');
    expect(sync.stderr).toContain('Nothing was written; @acme/menu stays as locked.');
    expect(await storeTree(dir)).toEqual(before);
    const check = await run(['check'], dir);
    expect(check.code, check.stderr).toBe(0);
  });

  it('an exact entry is told about its file, not that it "has no published version"', async () => {
    const { proxy, breakFile } = await setUp();
    await breakFile();
    const dir = await project({ baseUrl: proxy.url, prompts: ['@acme/menu'], contextFiles: true });
    const sync = await run(['sync'], dir);
    expect(sync.code).toBe(1);
    expect(sync.stderr).toContain('of @acme/menu could not be fetched');
    expect(sync.stderr).not.toContain('has no published version');
    expect(await storeTree(dir)).toEqual({});
  });
});
