/**
 * Issue 11, item 10: two branches that each synced different prompts conflict in prompts.lock.json.
 * A real git repository, the built CLI and the real local service: `sync` (and `sync --frozen`)
 * merge both sides, keep every version either branch locked, repair the conflicted snapshot at
 * exactly its locked version, and upgrade nothing else — the unrelated @acme/zeta stays at v5
 * although v7 is published upstream (what deleting the lockfile, the old hint, silently did).
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY, type RunningServer } from '../../src/server/index.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { git, gitOk } from '../helpers/git.js';
import { copyDir, removeDir } from '../helpers/project.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, defer } = disposables();

const read = (dir: string, file: string) => readFile(path.join(dir, file), 'utf8');
const versions = async (dir: string) => {
  const lock = JSON.parse(await read(dir, 'prompts.lock.json')) as { prompts: Record<string, { version: string }> };
  return Object.fromEntries(Object.entries(lock.prompts).map(([name, entry]) => [name, entry.version]));
};
const MARKER = /^(<{7}|={7}|>{7})/m;

let server: RunningServer;
let upstream: string;
/** The repository right after `git merge` stopped on the conflict; each test works on a copy. */
let conflicted: string;

/** Publishes a version of a prompt upstream (a file in the served folder), served once reloaded. */
async function publish(pkg: string, version: string, content: string): Promise<void> {
  await mkdir(path.join(upstream, 'acme', pkg), { recursive: true });
  await writeFile(path.join(upstream, 'acme', pkg, `${version}.md`), `${content}\n`);
}

async function syncIn(dir: string, ...args: string[]) {
  const run = await runBuiltCli(['sync', ...args], { cwd: dir, env });
  expect(run.code, run.stderr).toBe(0);
  return run;
}

beforeAll(async () => {
  upstream = await mkdtemp(path.join(tmpdir(), 'promptlock-upstream-'));
  defer(() => removeDir(upstream));
  await publish('w', 'v1', 'Shared prompt, first wording.');
  for (let n = 1; n <= 5; n++) await publish('zeta', `v${n}`, `Hello {{name}}, zeta revision ${n}.`);
  server = await serve({ dir: upstream });

  const repo = await mkdtemp(path.join(tmpdir(), 'promptlock-merge-'));
  defer(() => removeDir(repo));
  gitOk(repo, 'init', '-q', '-b', 'main');
  await writeFile(path.join(repo, 'prompts.config.json'), `${JSON.stringify({ baseUrl: server.url, prompts: ['@acme/*'] }, null, 2)}\n`);
  await syncIn(repo);
  expect(await versions(repo)).toEqual({ '@acme/w': 'v1', '@acme/zeta': 'v5' });
  gitOk(repo, 'add', '-A');
  gitOk(repo, 'commit', '-q', '-m', 'synced project');

  // Meanwhile the unrelated zeta gets v6 and v7 upstream; neither branch syncs it.
  await publish('zeta', 'v6', 'Hello {{name}}, zeta revision 6.');
  await publish('zeta', 'v7', 'Hello {{name}}, zeta revision 7 with {{extra}}.');

  // Branch a: a new prompt x, and w moves to v2.
  gitOk(repo, 'checkout', '-q', '-b', 'a');
  await publish('x', 'v1', 'Feature A asks {{question}}.');
  await publish('w', 'v2', 'Shared prompt, second wording.');
  await server.reload();
  await syncIn(repo, '@acme/x', '@acme/w');
  gitOk(repo, 'add', '-A');
  gitOk(repo, 'commit', '-q', '-m', 'a: sync x and w');

  // Branch b, from main: a new prompt y, and w moves to v3 (published since).
  gitOk(repo, 'checkout', '-q', '-b', 'b', 'main');
  await publish('y', 'v1', 'Feature B greets {{who}}.');
  await publish('w', 'v3', 'Shared prompt, third wording.');
  await server.reload();
  await syncIn(repo, '@acme/y', '@acme/w');
  expect(await versions(repo)).toEqual({ '@acme/w': 'v3', '@acme/y': 'v1', '@acme/zeta': 'v5' });
  gitOk(repo, 'add', '-A');
  gitOk(repo, 'commit', '-q', '-m', 'b: sync y and w');

  gitOk(repo, 'checkout', '-q', 'a');
  const merge = git(repo, 'merge', '--no-edit', 'b');
  expect(merge.code).not.toBe(0);
  expect(merge.out).toContain('CONFLICT (content): Merge conflict in prompts.lock.json');
  expect(await read(repo, 'prompts.lock.json')).toMatch(MARKER);
  expect(await read(repo, 'prompts/acme/w.json')).toMatch(MARKER);
  conflicted = repo;

  // The test is only meaningful if a re-resolution would upgrade zeta: the service's latest is v7.
  const latest = await fetch(`${server.url}/v1/prompts/get`, {
    method: 'POST',
    headers: { authorization: `Bearer ${LOCAL_TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ package_name: '@acme/zeta' }),
  });
  expect(((await latest.json()) as { version: string }).version).toBe('v7');
}, 180_000);

async function conflictedCopy(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-merged-'));
  defer(() => removeDir(dir));
  await copyDir(conflicted, dir);
  return dir;
}

/** The merged result both variants must reach. */
async function expectResolved(dir: string) {
  expect(await versions(dir)).toEqual({ '@acme/w': 'v3', '@acme/x': 'v1', '@acme/y': 'v1', '@acme/zeta': 'v5' });
  for (const file of ['prompts.lock.json', 'prompts/acme/w.json', 'src/generated/prompts.ts'])
    expect(await read(dir, file)).not.toMatch(MARKER);
  // The prompt the merge did not touch is byte for byte what main committed.
  expect(await read(dir, 'prompts/acme/zeta.json')).toBe(gitOk(dir, 'show', 'main:prompts/acme/zeta.json'));
  expect(await read(dir, 'prompts/acme/w.json')).toContain('third wording');
  const module = await read(dir, 'src/generated/prompts.ts');
  for (const fn of ['export function w(', 'export function x(', 'export function y(', 'export function zeta('])
    expect(module).toContain(fn);
  expect(module).not.toContain('extra');
  const check = await runBuiltCli(['check'], { cwd: dir, env: {} });
  expect(check.code, check.stderr).toBe(0);
  // The resolution is an ordinary commit.
  gitOk(dir, 'add', '-A');
  gitOk(dir, 'commit', '-q', '--no-edit');
}

describe('a lockfile with git conflict markers', () => {
  it('generate and check stop with a message that names the conflict and says to run `promptlock sync`', async () => {
    const dir = await conflictedCopy();
    for (const command of [['generate'], ['check', '--no-typecheck']]) {
      const run = await runBuiltCli(command, { cwd: dir, env: {} });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/prompts\.lock\.json has unresolved git merge conflict markers \(line \d+\)/);
      expect(run.stderr).toContain('Run `promptlock sync`');
      expect(run.stderr).not.toContain('delete it');
    }
  });

  it('`sync` merges both sides, repairs the conflicted snapshot at its locked version, upgrades nothing else', async () => {
    const dir = await conflictedCopy();
    const gets = server.stats.byRoute.get ?? 0;
    const run = await syncIn(dir);
    expect(run.stderr).toContain('Merged the git conflict in prompts.lock.json');
    expect(run.stderr).toContain('@acme/w  v3 (theirs, over v2: higher version)');
    expect(run.stderr).toContain('@acme/y  v1 (only theirs locked it)');
    // Only the versions one side alone locked were fetched, each at exactly its locked version
    // (w at v3, x, y: a branch's word is confirmed with the service); nothing was listed.
    expect((server.stats.byRoute.get ?? 0) - gets).toBe(3);
    await expectResolved(dir);
  });

  it('`sync --frozen` reaches the same files', async () => {
    const dir = await conflictedCopy();
    const run = await runBuiltCli(['sync', '--frozen', '--json'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as { resolvedConflict: { hunks: number; decisions: Array<{ name: string; kept: string }> } };
    expect(summary.resolvedConflict.decisions.map((d) => `${d.name}:${d.kept}`)).toEqual([
      '@acme/w:theirs',
      '@acme/x:ours',
      '@acme/y:theirs',
    ]);
    await expectResolved(dir);
  });
});

describe('a draft locked on both branches with different texts', () => {
  it('keeps the side whose text the service answers for the draft, and stops naming it when it answers neither', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'promptlock-upstream-'));
    defer(() => removeDir(folder));
    const draft = (text: string) =>
      mkdir(path.join(folder, 'acme', 'd'), { recursive: true }).then(() =>
        writeFile(path.join(folder, 'acme', 'd', 'draft.md'), `${text}\n`),
      );
    await draft('Draft zero for {{who}}.');
    const drafts = await serve({ dir: folder });
    const repo = await mkdtemp(path.join(tmpdir(), 'promptlock-merge-'));
    defer(() => removeDir(repo));
    gitOk(repo, 'init', '-q', '-b', 'main');
    await writeFile(
      path.join(repo, 'prompts.config.json'),
      `${JSON.stringify({ baseUrl: drafts.url, prompts: ['@acme/d:draft'] }, null, 2)}\n`,
    );
    await syncIn(repo);
    gitOk(repo, 'add', '-A');
    gitOk(repo, 'commit', '-q', '-m', 'base');
    for (const [branch, text] of [
      ['a', 'Draft one for {{who}}.'],
      ['b', 'Draft two for {{who}}.'],
    ] as const) {
      gitOk(repo, 'checkout', '-q', '-b', branch, 'main');
      await draft(text);
      await drafts.reload();
      await syncIn(repo);
      gitOk(repo, 'add', '-A');
      gitOk(repo, 'commit', '-q', '-m', `${branch}: draft`);
    }
    const theirs = gitOk(repo, 'show', 'b:prompts.lock.json');
    gitOk(repo, 'checkout', '-q', 'a');
    expect(git(repo, 'merge', '--no-edit', 'b').out).toContain('CONFLICT (content): Merge conflict in prompts.lock.json');
    // The snapshot's conflict resolved by hand, taking b's; the lockfile left to promptlock. The
    // files cannot say which text is v0 (issue 30, item 10): the service is asked.
    gitOk(repo, 'checkout', '--theirs', 'prompts/acme/d.json');
    await draft('Draft three for {{who}}.');
    await drafts.reload();
    const conflictedLock = await read(repo, 'prompts.lock.json');
    const refused = await runBuiltCli(['sync'], { cwd: repo, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('@acme/d v0 is locked with a different text on each side of the merged lockfile');
    expect(await read(repo, 'prompts.lock.json')).toBe(conflictedLock);
    await draft('Draft two for {{who}}.');
    await drafts.reload();
    const gets = drafts.stats.byRoute.get ?? 0;
    const run = await syncIn(repo);
    expect(run.stderr).toContain('@acme/d  v0 (theirs, over v0: confirmed by the service)');
    expect((drafts.stats.byRoute.get ?? 0) - gets).toBe(1);
    expect(await read(repo, 'prompts.lock.json')).toBe(theirs);
    expect((await runBuiltCli(['check', '--no-typecheck'], { cwd: repo, env: {} })).code).toBe(0);
  });
});
