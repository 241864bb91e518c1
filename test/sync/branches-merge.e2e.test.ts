/**
 * Two prompt pull requests merge (docs/architecture.md, "The module merges"): two git branches
 * from one base, each syncing a change to a different prompt (neighbours in every file, so their
 * hunks are as close as they can be), merged with real `git merge`: no conflict in the lockfile,
 * the snapshots or the module, and `check` passes on the merge. Nothing in the module changes but
 * what the changed prompt holds: relabelling one context item changes its line, the version in
 * the JSDoc, `version` and `packageName`, and nothing else.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { LOCAL_TEST_KEY, type RunningServer } from '../../src/server/index.js';
import { encodeSnapshot } from '../../src/store/snapshot-format.js';
import type { Prompt } from '../../src/types.js';
import { runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { git, gitOk } from '../helpers/git.js';
import { removeDir } from '../helpers/project.js';
import { generatedPrompt, writeServedFolder } from '../helpers/served-folder.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project, defer } = disposables();
const MODULE = 'src/generated/prompts.ts';

let upstream: string;
let server: RunningServer;
let repo: string;

/** Prompt `index` at version `version`, its texts of revision `texts`, with two URL context items; `label` names the first. */
function prompt(index: number, version: number, { texts = version, label = 'Style guide' } = {}): Prompt {
  const base = generatedPrompt(index, texts);
  const item = (n: number, text: string) => ({
    id: `ctx_${index}_${n}`,
    type: 'url' as const,
    label: text,
    url: `https://example.com/${index}/${n}`,
    createdAt: 1_700_000_000_000,
    urlFetchedAt: 1_700_000_000_000,
  });
  const packageName = `${base.packageName.split(':')[0]}:v${version}`;
  return { ...base, version: `v${version}`, packageName, context: [item(1, label), item(2, 'Glossary')] };
}

/** Publishes `next` upstream and syncs it on the branch checked out, then commits. */
async function syncAndCommit(next: Prompt, message: string): Promise<void> {
  const pkg = next.packageName.split('/')[1]!.split(':')[0]!;
  await writeFile(path.join(upstream, 'bulk', `${pkg}.json`), encodeSnapshot(next));
  await server.reload();
  const run = await runCliInProcess(['sync'], { cwd: repo, env });
  expect(run.code, run.stderr).toBe(0);
  gitOk(repo, 'add', '-A');
  gitOk(repo, 'commit', '-q', '-m', message);
}

beforeAll(async () => {
  upstream = await writeServedFolder(undefined, 5, 1);
  defer(() => removeDir(upstream));
  for (let i = 0; i < 5; i++) await writeFile(path.join(upstream, 'bulk', `prompt-000${i}.json`), encodeSnapshot(prompt(i, 1)));
  server = await serve({ dir: upstream });
  repo = await project({ baseUrl: server.url });
  gitOk(repo, 'init', '-q', '-b', 'main');
  const first = await runCliInProcess(['sync'], { cwd: repo, env });
  expect(first.code, first.stderr).toBe(0);
  gitOk(repo, 'add', '-A');
  gitOk(repo, 'commit', '-q', '-m', 'base: five prompts');

  // Branch a: prompt 1 relabels a context item (a new version, the same texts).
  gitOk(repo, 'checkout', '-q', '-b', 'a');
  await syncAndCommit(prompt(1, 2, { texts: 1, label: 'House style' }), 'a: prompt 1 v2');
  // Branch b, from main: its neighbour, prompt 2, gets new texts (upstream prompt 1 is back at v1).
  gitOk(repo, 'checkout', '-q', '-b', 'b', 'main');
  await writeFile(path.join(upstream, 'bulk', 'prompt-0001.json'), encodeSnapshot(prompt(1, 1)));
  await syncAndCommit(prompt(2, 3), 'b: prompt 2 v3');
});

it('a relabelled context item changes its own line of the module, and only what names the version', () => {
  const diff = gitOk(repo, 'diff', '--unified=0', 'main', 'a', '--', MODULE);
  const changed = diff.split('\n').filter((line) => /^[-+][^-+]/.test(line));
  expect(changed.filter((line) => line.startsWith('+'))).toEqual([
    '+/** Prompt 1 (@bulk/prompt-0001:v2) */',
    '+    version: "v2",',
    '+    packageName: "@bulk/prompt-0001:v2",',
    expect.stringMatching(/^\+ {6}\{ createdAt: \d+, id: "ctx_1_1", label: "House style", /),
    // The prompt's own provenance: its version and the integrity of its new text.
    expect.stringMatching(
      /^\+ {4}provenance: \{ name: "@bulk\/prompt-0001", version: "v2", integrity: "sha256-[^"]+", source: "snapshot" \},$/,
    ),
  ]);
  expect(changed).toHaveLength(10);
});

it('two branches that change different prompts merge with no conflict, and check passes on the merge', async () => {
  gitOk(repo, 'checkout', '-q', 'a');
  const merge = git(repo, 'merge', '--no-edit', 'b');
  expect(merge.code, merge.out).toBe(0);
  expect(merge.out).not.toMatch(/CONFLICT/);
  // Each file took both sides: the merge is what one sync of both changes writes.
  const changed = gitOk(repo, 'diff', '--name-only', 'main', 'HEAD').trim().split('\n').sort();
  expect(changed).toEqual(['prompts.lock.json', 'prompts/bulk/prompt-0001.json', 'prompts/bulk/prompt-0002.json', MODULE]);
  const check = await runCliInProcess(['check'], { cwd: repo, env: {} });
  expect(check.stderr).toContain('agree');
  expect(check.code).toBe(0);
});
