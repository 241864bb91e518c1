/**
 * `sync --recursive` resolves an app's config conflicted inside its prompts list, as `sync` does
 * in one project (issue 18, item 5); the other commands report the conflict for that app.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ConfigConflictError } from '../../src/config/config-conflict.js';
import { runWorkspace } from '../../src/workspace/run-workspace.js';
import { removeDir } from '../helpers/project.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map(removeDir)));

const CONFLICTED = '{\n  "prompts": [\n<<<<<<< HEAD\n    "@acme/a"\n=======\n    "@acme/b"\n>>>>>>> other\n  ]\n}\n';

it('resolves an app config conflicted inside its prompts list only when asked (sync)', async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'promptlock-ws-conflict-'));
  dirs.push(root);
  await writeFile(path.join(root, 'package.json'), JSON.stringify({ workspaces: ['apps/*'] }));
  await mkdir(path.join(root, 'apps', 'web'), { recursive: true });
  const file = path.join(root, 'apps', 'web', 'prompts.config.json');
  await writeFile(file, CONFLICTED);
  const open = () => Promise.reject(new Error('no client in this test'));
  const run = async (_app: unknown, config: { prompts: string[] }) => config.prompts;

  const check = await runWorkspace({ cwd: root, open, run });
  expect(check.outcomes[0]).toMatchObject({ ok: false });
  expect((check.outcomes[0] as { error: unknown }).error).toBeInstanceOf(ConfigConflictError);
  expect(await readFile(file, 'utf8')).toBe(CONFLICTED);

  const resolved: string[] = [];
  const sync = await runWorkspace({
    cwd: root,
    open,
    run,
    onConflictResolved: (app, r) => resolved.push(`${app.relativeDir}: ${r.added.join()}`),
  });
  expect(sync.outcomes[0]).toMatchObject({ ok: true, value: ['@acme/a', '@acme/b'] });
  expect(resolved).toEqual(['apps/web: @acme/b']);
});
