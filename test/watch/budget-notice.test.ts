/**
 * Watch says once, at the real local service, when the asked interval cannot be met within the
 * request budget: 60 floating prompts polled every second at 20% of 1,000 a minute are each
 * checked about every 20 s, and the notice says what to change.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { sync, watch } from '../../src/library.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import type { WatchHandle } from '../../src/watch/watch.js';
import { makeProject, removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';
import { waitUntil } from '../helpers/wait-until.js';

const KEY = `sk_live_${'WatchNoticeKey'.padEnd(38, 'n')}wxyz`;
let server: RunningServer | undefined;
let handle: WatchHandle | undefined;
const dirs: string[] = [];
afterAll(async () => {
  await handle?.close();
  await server?.close();
  await Promise.all(dirs.map(removeDir));
});

async function watching(prompts: number, intervalSeconds: number, lines: string[]): Promise<WatchHandle> {
  const served = await writeServedFolder(undefined, prompts, 1);
  dirs.push(served);
  server = await startServer({ dir: served, port: 0, keys: [{ key: KEY }] });
  const dir = await makeProject({ baseUrl: server.url, prompts: ['@bulk/*'] });
  dirs.push(dir);
  const project = { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } };
  await sync(project);
  const keep = (message: string) => void lines.push(message);
  handle = await watch(project, { log: { info: keep, success: keep, warn: keep }, intervalSeconds, limitPerMinute: 1000 });
  await handle.ready;
  return handle;
}

describe('watch and the request budget', () => {
  it('60 floating prompts every 1 s: said once, with the real period and what to change', async () => {
    const lines: string[] = [];
    const watch = await watching(60, 1, lines);
    await waitUntil('3 polls', () => watch.stats.polls >= 3, 15_000);
    await watch.close();
    const notices = lines.filter((line) => line.includes('floating prompts is checked'));
    expect(notices).toEqual([
      'Each of the 60 floating prompts is checked about every 20 s, not every 1 s: polling keeps to 200 requests a minute ' +
        "(20% of the service's limit of 1000), 3 a poll. To check them more often, pin prompts to a version (those are not polled), " +
        'or raise --rate-limit if the service allows more than 1000 a minute; --interval 20 polls at the pace that is met.',
    ]);
  });
});
