/**
 * `syncWorkspace()` (the programmatic `sync --recursive`) over a pnpm workspace against the real
 * local service, requests counted by the server: the list once, each package name asked for once,
 * and an app whose prompt the service does not have fails alone, with its name.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { LOCAL_TEST_KEY, ServiceError, syncWorkspace } from '../../src/index.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const use = disposables();

it('lists once, gets each package name once, and a failing app leaves the others committed', async () => {
  const served = await writeServedFolder(undefined, 3, 2);
  use.defer(() => removeDir(served));
  const server = await use.serve({ dir: served });
  const root = await mkdtemp(path.join(tmpdir(), 'promptlock-sync-workspace-'));
  use.defer(() => removeDir(root));
  await writeFile(path.join(root, 'pnpm-workspace.yaml'), "packages:\n  - 'apps/**'\n");
  const apps: Record<string, string[]> = {
    'apps/web': ['@bulk/*'],
    'apps/mobile/ios': ['@bulk/*', '@bulk/prompt-0002:v2'],
    'apps/broken': ['@bulk/prompt-0001:latest', '@bulk/missing'],
  };
  for (const [dir, prompts] of Object.entries(apps)) {
    await mkdir(path.join(root, dir), { recursive: true });
    await writeFile(path.join(root, dir, 'prompts.config.json'), JSON.stringify({ baseUrl: server.url, prompts }));
  }
  server.resetStats();
  const result = await syncWorkspace({ cwd: path.join(root, 'apps'), env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY } });
  expect(result.root).toBe(root);
  expect(result.apps.map((a) => [a.app, a.ok])).toEqual([
    ['apps/broken', false],
    ['apps/mobile/ios', true],
    ['apps/web', true],
  ]);
  const broken = result.apps[0]!;
  expect(!broken.ok && broken.error).toBeInstanceOf(ServiceError);
  expect(!broken.ok && (broken.error as Error).message).toContain('@bulk/missing');
  const ios = result.apps[1]!;
  expect(ios.ok && ios.result.added.map((c) => c.name)).toEqual(['@bulk/prompt-0000', '@bulk/prompt-0001', '@bulk/prompt-0002']);
  // broken: 0001:latest, missing (404); ios: the list, 0000 and 0002 at :latest (0001:latest is
  // broken's answer), 0002:v2; web: nothing new.
  expect(server.stats.byRoute).toEqual({ get: 5, list: 1 });
  expect(result.requests).toBe(6);
  expect(existsSync(path.join(root, 'apps/web/prompts.lock.json'))).toBe(true);
  expect(existsSync(path.join(root, 'apps/mobile/ios/prompts.lock.json'))).toBe(true);
  expect(existsSync(path.join(root, 'apps/broken/prompts.lock.json'))).toBe(false);
});
