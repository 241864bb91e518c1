/**
 * Watch regenerates through the front door (src/library.ts): what `generate` does about the journal
 * an interrupted sync left (docs/architecture.md, "Atomic commit"), watch's regenerate does too.
 * Twin projects with the same interrupted run: one runs `generate`, the other starts `watch`; their
 * files, their work folders and what they said are the same.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { callGenerate, sync, watch } from '../../src/library.js';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { decodeLockfile, encodeLockfile } from '../../src/store/lockfile-format.js';
import type { WatchHandle } from '../../src/watch/watch.js';
import { disposables } from '../helpers/disposables.js';
import { writeJournalFile } from '../helpers/journal.js';
import { copyDir, storeTree } from '../helpers/project.js';

const { serve, project, folder, defer } = disposables();
let handle: WatchHandle | undefined;
afterAll(() => handle?.close());

const workFolder = (dir: string) => readdir(path.join(dir, '.promptlock')).catch(() => [] as string[]);

it('watch does on its first regenerate what generate does with an interrupted sync', async () => {
  const served = await folder({ 'ws/alpha/v1.md': 'Alpha {{name}}', 'ws/beta/v1.md': 'Beta', 'ws/gamma/v1.md': 'Gamma' });
  const server = await serve({ dir: served });
  const twinA = await project({ baseUrl: server.url, prompts: ['@ws/*'] });
  await sync({ cwd: twinA, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY } });
  // Prompt data a real run could commit, then be killed before applying: gamma dropped.
  const lockfile = decodeLockfile(await readFile(path.join(twinA, 'prompts.lock.json'), 'utf8'), 'prompts.lock.json');
  delete lockfile.prompts['@ws/gamma'];
  await writeJournalFile(
    twinA,
    [
      { kind: 'write', target: 'prompts.lock.json' },
      { kind: 'delete', target: 'prompts/ws/gamma.json', prune: true },
    ],
    [encodeLockfile(lockfile), undefined],
  );
  const twinB = `${twinA}-twin`;
  await copyDir(twinA, twinB);
  defer(() => import('../helpers/project.js').then((m) => m.removeDir(twinB)));
  expect(await workFolder(twinB)).toEqual(await workFolder(twinA));

  const said = { generate: [] as string[], watch: [] as string[] };
  // Whatever the door's policy for the journal (finish it, or refuse it), both twins meet it alike.
  const failed = await callGenerate(
    { cwd: twinA, env: {} },
    { onEvent: (event) => 'message' in event && said.generate.push(`${event.type}: ${event.message}`) },
  ).then(
    () => undefined,
    (error: Error) => error.message,
  );
  const warned: string[] = [];
  handle = await watch(
    { cwd: twinB, env: {} },
    { log: { info: () => {}, success: () => {}, warn: (message) => void warned.push(message) }, poll: false },
    { onEvent: (event) => 'message' in event && said.watch.push(`${event.type}: ${event.message}`) },
  );
  await handle.ready;
  await handle.close();

  expect(said.watch).toEqual(said.generate);
  // The files the first regenerate applied may bring a second one before the close: same result.
  if (failed === undefined) expect(handle.stats.generates).toBeGreaterThanOrEqual(1);
  else expect(warned).toEqual([expect.stringContaining(failed)]);
  expect(await workFolder(twinB)).toEqual(await workFolder(twinA));
  expect(await storeTree(twinB)).toEqual(await storeTree(twinA));
});
