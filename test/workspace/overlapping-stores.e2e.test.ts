/**
 * Issue 19, item 27: in a workspace, a root app whose snapshots folder is another app's pruned
 * that app's snapshots on every sync, and said "0 removed". Apps whose stores overlap are refused
 * before any app runs, naming both. The built CLI against the real local service.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const { serve, project, defer } = disposables();
const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };

it("a root app whose snapshots folder is an app's own is refused, naming both; nothing is deleted", async () => {
  const served = await writeServedFolder(undefined, 3, 1);
  defer(() => removeDir(served));
  const server = await serve({ dir: served });
  const root = await project({ baseUrl: server.url, prompts: ['@bulk/prompt-0000'], snapshots: 'apps/web/prompts' });
  await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'shop', private: true, workspaces: ['apps/*'] }));
  const web = path.join(root, 'apps', 'web');
  await mkdir(web, { recursive: true });
  await writeFile(path.join(web, 'package.json'), JSON.stringify({ name: '@shop/web' }));
  await writeFile(
    path.join(web, 'prompts.config.json'),
    JSON.stringify({ baseUrl: server.url, prompts: ['@bulk/prompt-0001', '@bulk/prompt-0002'] }),
  );
  const own = await runBuiltCli(['sync'], { cwd: web, env });
  expect(own.code, own.stderr).toBe(0);
  const before = await readdir(path.join(web, 'prompts', 'bulk'));
  expect(before).toHaveLength(2);

  for (const command of [
    ['sync', '--recursive'],
    ['generate', '--recursive'],
  ]) {
    const run = await runBuiltCli(command, { cwd: root, env });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      'Apps shop (.) and @shop/web (apps/web) overlap: its snapshots folder apps/web/prompts holds the snapshots folder apps/web/prompts of @shop/web',
    );
  }
  expect(await readdir(path.join(web, 'prompts', 'bulk'))).toEqual(before);
});
