/**
 * Item 1: one service client per run. A config of exact names (what `add` writes) used to open
 * one client per prompt, so `concurrency` and rate-limit pacing were ignored and the summary
 * counted one client's requests. Built CLI against `promptlock serve` with a 5-per-window limit.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { runCliInProcess as runBuiltCli, startServe } from '../helpers/cli.js';
import { makeProject, removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

it('8 exact names, concurrency 2, 5 requests per window: zero 429s, and the reported count is what the server received', async () => {
  const served = await writeServedFolder(await mkdtemp(path.join(tmpdir(), 'promptlock-one-client-')), 8, 1);
  dirs.push(served);
  const serve = await startServe(['--dir', served, '--limit-per-minute', '5', '--minute-ms', '1500'], served);
  try {
    const names = Array.from({ length: 8 }, (_, i) => `@bulk/prompt-${String(i).padStart(4, '0')}`);
    const project = await makeProject({ baseUrl: serve.url, prompts: names, concurrency: 2 });
    dirs.push(project);
    const run = await runBuiltCli(['sync', '--json'], { cwd: project, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY } });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as { requests: number; rateLimited: number; added: unknown[] };
    expect(summary.added).toHaveLength(8);
    expect(summary.rateLimited).toBe(0);
    const received = await serve.settle(summary.requests);
    expect(received.filter((line) => / 429 /.test(line))).toEqual([]);
    expect(summary.requests).toBe(8);
    expect(received).toHaveLength(summary.requests);
  } finally {
    await serve.stop();
  }
});
