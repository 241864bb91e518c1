/**
 * Watch and a refused prompt (README, "Placeholders"): a new version a glob matched that the
 * grammar refuses is skipped by the poll's sync, stays locked at its version, and is said once.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { loadConfig } from '../../src/config/index.js';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { sync } from '../../src/sync/sync.js';
import { startWatch, type WatchHandle } from '../../src/watch/watch.js';
import { disposables } from '../helpers/disposables.js';
import { waitUntil } from '../helpers/wait-until.js';

const { serve, project, folder } = disposables();
let handle: WatchHandle | undefined;
afterAll(() => handle?.close());

it('skips the refused version, keeps the locked one, and warns once', async () => {
  const served = await folder({ 'ws/good/v1.md': 'Good {{name}}', 'ws/flaky/v1.md': 'Flaky {{count:number}}' });
  const server = await serve({ dir: served });
  const dir = await project({ baseUrl: server.url, prompts: ['@ws/*'] });
  const load = () => loadConfig({ cwd: dir, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY } });
  const config = await load();
  const connect = async (c: typeof config) => createClient({ baseUrl: c.baseUrl, apiKey: c.apiKey });
  await sync({ config, connect: () => connect(config) });
  const lockBefore = await readFile(path.join(dir, 'prompts.lock.json'), 'utf8');

  await writeFile(path.join(served, 'ws/flaky/v2.md'), '{{count:number}} and {{count:string}}');
  await server.reload();
  const warnings: string[] = [];
  const ignore = () => {};
  handle = await startWatch({
    loadConfig: load,
    connect,
    log: { info: ignore, success: ignore, warn: (message) => void warnings.push(message) },
    intervalSeconds: 0.2,
    limitPerMinute: 1000,
  });
  await handle.ready;
  await waitUntil('a sync, then polls after it', () => handle!.stats.syncs >= 1 && handle!.stats.polls >= 5, 15_000);
  await handle.close();
  expect(warnings).toEqual([
    'Skipped @ws/flaky: Variable "count" has conflicting type hints: "number" at @ws/flaky content 1:1 and "string" at @ws/flaky content 1:22; it stays locked at v1',
  ]);
  expect(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8')).toBe(lockBefore);
});
