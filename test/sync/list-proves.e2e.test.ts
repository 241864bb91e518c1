/**
 * The built CLI against the real local service: a warm sync gets no floating prompt the list names
 * at its locked version (`serve --list-names versioned`), gets exactly the one published since, gets
 * every one with `--refetch` or when the list names no versions, and gets one whose snapshot is gone.
 */
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { encodeSnapshot } from '../../src/store/snapshot-format.js';
import { runCliInProcess as runBuiltCli, startServe } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { generatedPrompt, writeServedFolder } from '../helpers/served-folder.js';

const KEY = `sk_live_${'ListProvesKey'.padEnd(38, 'q')}abcd`;
const COUNT = 6;
const names = Array.from({ length: COUNT }, (_, i) => generatedPrompt(i, 1).packageName.split(':')[0]!);
// Half float with no selector, half at `latest`.
const prompts = names.map((name, i) => (i % 2 === 0 ? name : `${name}:latest`));

const { serve, project, defer } = disposables();

async function sync(dir: string, ...args: string[]) {
  const run = await runBuiltCli(['sync', '--json', ...args], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as {
    savedByList: number;
    fetched: number;
    changed: Array<{ name: string }>;
    requests: number;
    title: string;
  };
}

async function setup(listNames: 'full' | 'versioned' | 'bare') {
  const served = await writeServedFolder(undefined, COUNT, 1);
  defer(() => rm(served, { recursive: true, force: true }));
  const server = await serve({ dir: served, keys: [{ key: KEY }], listNames });
  const dir = await project({
    baseUrl: server.url,
    workspace: 'bulk',
    prompts,
    lockfile: 'prompts.lock.json',
    snapshots: 'prompts',
    output: 'prompts.ts',
  });
  await sync(dir); // cold: locks everything
  server.resetStats();
  return { server, dir, served };
}

const gets = (server: RunningServer) => server.stats.byRoute.get ?? 0;
const lists = (server: RunningServer) => server.stats.byRoute.list ?? 0;

describe('a list that names versions proves floating prompts unchanged', () => {
  it('warm sync: list pages only; a new version: one get; --refetch: every get; a lost snapshot: its get', async () => {
    const { server, dir, served } = await setup('versioned');

    const warm = await sync(dir);
    expect(gets(server)).toBe(0);
    expect(lists(server)).toBe(1);
    expect(warm.savedByList).toBe(COUNT);
    expect(warm.requests).toBe(1);
    expect(warm.title).toBe('');

    // Publish v2 of one prompt: exactly that one is got.
    const bumped = generatedPrompt(2, 2);
    await writeFile(path.join(served, 'bulk', 'prompt-0002.json'), encodeSnapshot(bumped));
    await server.reload();
    server.resetStats();
    const published = await sync(dir);
    expect(gets(server)).toBe(1);
    expect(published.changed.map((c) => c.name)).toEqual([names[2]]);
    // The pull-request title, without --report: what changed, from the run's own changes.
    expect(published.title).toBe(`Update ${names[2]} to v2`);
    expect(published.savedByList).toBe(COUNT - 1);

    server.resetStats();
    const refetched = await sync(dir, '--refetch');
    expect(gets(server)).toBe(COUNT);
    expect(refetched.savedByList).toBe(0);

    // The proof needs the snapshot verified on disk: a missing one is fetched again.
    await rm(path.join(dir, 'prompts', 'bulk', 'prompt-0004.json'));
    server.resetStats();
    const repaired = await sync(dir);
    expect(gets(server)).toBe(1);
    expect(repaired.savedByList).toBe(COUNT - 1);
  });

  it('the text summary says how many gets the list saved', async () => {
    const { dir } = await setup('versioned');
    const run = await runBuiltCli(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`${COUNT} gets saved by the list`);
  });

  it.each(['full', 'bare'] as const)('list names without versions (%s): exactly one get per floating prompt, as before', async (form) => {
    const { server, dir } = await setup(form);
    const warm = await sync(dir);
    expect(gets(server)).toBe(COUNT);
    expect(warm.savedByList).toBe(0);
  });
});

describe('promptlock serve --list-names', () => {
  it('answers list items in the form asked for', async () => {
    const served = await writeServedFolder(undefined, 2, 3);
    defer(() => rm(served, { recursive: true, force: true }));
    const serveCli = await startServe(['--dir', served, '--list-names', 'versioned'], served);
    defer(async () => void (await serveCli.stop()));
    const url = serveCli.url;
    const { LOCAL_TEST_KEY } = await import('../../src/secrets.js');
    const answer = await fetch(`${url}/v1/prompts`, { headers: { Authorization: `Bearer ${LOCAL_TEST_KEY}` } });
    const body = (await answer.json()) as { prompts: Array<{ packageName: string }> };
    expect(body.prompts.map((p) => p.packageName)).toEqual(['@bulk/prompt-0000:v3', '@bulk/prompt-0001:v3']);
  });
});
