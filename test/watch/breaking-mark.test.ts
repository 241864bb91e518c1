/**
 * Watch marks a breaking change as `sync` marks it (README, "Commands"): a poll that syncs a new
 * version whose function takes other variables says `BREAKING` on its line, first, and warns how
 * the function changed; a change that breaks nothing is not marked.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { sync, watch } from '../../src/library.js';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import type { WatchHandle } from '../../src/watch/watch.js';
import { disposables } from '../helpers/disposables.js';
import { waitUntil } from '../helpers/wait-until.js';

const { serve, project, folder } = disposables();
let handle: WatchHandle | undefined;
afterAll(() => handle?.close());

it('marks the breaking change first, with the line that says how it breaks', async () => {
  const served = await folder({ 'ws/alpha/v1.md': 'Alpha {{name}}', 'ws/beta/v1.md': 'Beta {{name}}' });
  const server = await serve({ dir: served });
  const dir = await project({ baseUrl: server.url, prompts: ['@ws/alpha', '@ws/beta'] });
  const where = { cwd: dir, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY } };
  await sync(where);

  await writeFile(path.join(served, 'ws/alpha/v2.md'), 'Alpha, again {{name}}');
  await writeFile(path.join(served, 'ws/beta/v2.md'), 'Beta {{name}} {{count:number}}');
  await server.reload();
  const said: string[] = [];
  handle = await watch(where, {
    log: {
      info: () => {},
      success: (message) => void said.push(`success: ${message}`),
      warn: (message) => void said.push(`warn: ${message}`),
    },
    intervalSeconds: 0.2,
    limitPerMinute: 6000,
  });
  await handle.ready;
  await waitUntil('a sync', () => handle!.stats.syncs >= 1, 15_000);
  await handle.close();
  expect(said.filter((line) => !line.startsWith('success: Regenerated'))).toEqual([
    'success: Synced: ~ @ws/beta v1 → v2  BREAKING, ~ @ws/alpha v1 → v2',
    "warn: @ws/beta breaking: its function's parameter changes (variables added: count)",
  ]);
});
