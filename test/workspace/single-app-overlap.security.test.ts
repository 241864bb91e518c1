/**
 * Issue 30, item 13: `sync --recursive` refuses apps whose stores overlap, but a single `sync` of
 * the root app, whose snapshots folder is another app's, pruned that app's snapshots as orphans.
 * A sync writes and deletes only in a snapshots folder that lies in no other promptlock project
 * (a folder below its own holding a config of its own); otherwise it stops before writing anything,
 * naming that config (a configuration error, exit 2).
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir, storeTree } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const { serve, project, defer } = disposables();
const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };

it("a single sync of an app whose snapshots folder is another app's stops, naming it; nothing of that app is deleted", async () => {
  const served = await writeServedFolder(undefined, 3, 1);
  defer(() => removeDir(served));
  const server = await serve({ dir: served });
  const root = await project({ baseUrl: server.url, prompts: ['@bulk/prompt-0000'], snapshots: 'apps/web/prompts' });
  await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'shop', private: true, workspaces: ['apps/*'] }));
  const web = path.join(root, 'apps', 'web');
  await mkdir(web, { recursive: true });
  await writeFile(
    path.join(web, 'prompts.config.json'),
    JSON.stringify({ baseUrl: server.url, prompts: ['@bulk/prompt-0001', '@bulk/prompt-0002'] }),
  );
  expect((await runCliInProcess(['sync'], { cwd: web, env })).code).toBe(0);
  const before = await storeTree(web);
  expect(await readdir(path.join(web, 'prompts', 'bulk'))).toHaveLength(2);

  const run = await runCliInProcess(['sync'], { cwd: root, env });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('apps/web is another promptlock project (it has apps/web/prompts.config.json)');
  expect(await storeTree(web)).toEqual(before);
});
