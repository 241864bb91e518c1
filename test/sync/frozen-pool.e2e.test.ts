/**
 * `sync --frozen` runs its prompts in the same bounded pool as the normal path, with its
 * halt-on-a-failing-service policy: against a service answering 503, the prompts not yet started
 * are not started (src/sync/for-each-prompt.ts). Built CLI, scripted loopback service.
 */

import { rm } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { hostileService, json } from '../helpers/hostile-network.js';
import { generatedPrompt } from '../helpers/served-folder.js';

const { project } = disposables();
const KEY = `sk_live_${'FrozenPool'.padEnd(38, 'f')}wxyz`;
const COUNT = 40;
const state = { failing: false, asked: new Set<string>() };

const service = hostileService((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk));
  req.on('end', () => {
    if (req.url !== '/v1/prompts/get') return json(res, 404, { error: { code: 'not_found', message: 'no' } });
    const name = (JSON.parse(body) as { package_name: string }).package_name;
    state.asked.add(name);
    if (state.failing) return json(res, 503, { error: { code: 'unavailable', message: 'down' } });
    const index = Number(name.match(/prompt-(\d+)/)![1]);
    json(res, 200, generatedPrompt(index, 1, 'acme'));
  });
});

it('a service failing with 503: the frozen sync starts no more prompts once one has given up', async () => {
  const { url } = await service();
  const names = Array.from({ length: COUNT }, (_, i) => `@acme/prompt-${String(i).padStart(4, '0')}`);
  const dir = await project({ baseUrl: url, prompts: names, concurrency: 2 });
  expect((await runBuiltCli(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } })).code).toBe(0);
  await rm(path.join(dir, 'prompts'), { recursive: true });
  state.failing = true;
  state.asked.clear();
  const run = await runBuiltCli(['sync', '--frozen'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } });
  expect(run.code).toBe(1);
  expect(run.stderr.match(/The service failed with 503/g)).toHaveLength(1);
  // The prompts running when the first gave up (concurrency 2), not all 40.
  expect(state.asked.size).toBeLessThanOrEqual(2);
}, 60_000);

it('a frozen sync whose snapshots are all on disk opens no working client: no key, a remote address, exit 0', async () => {
  const { url } = await service();
  state.failing = false;
  const names = Array.from({ length: 12 }, (_, i) => `@acme/prompt-${String(i).padStart(4, '0')}`);
  const dir = await project({ baseUrl: url, prompts: names, concurrency: 2 });
  expect((await runBuiltCli(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } })).code).toBe(0);
  const offline = { PROMPTLOCK_BASE_URL: 'https://prompts.example.invalid' };
  const run = await runBuiltCli(['sync', '--frozen'], { cwd: dir, env: offline });
  expect(run.stderr).not.toMatch(/error/);
  expect(run.code).toBe(0);
});
