/**
 * Issue 18, item 5: two branches that each `add` prompts conflict in prompts.config.ts. A real git
 * repository, the built CLI and the real local service: every command that loads the config names
 * the conflict (file, line, what to do; exit 2); `sync` resolves a conflict made of entries inside
 * the prompts list (both sides kept, an entry on both sides once, comments kept, said on stderr),
 * together with the lockfile's; a conflict holding code is left to the user.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { git, gitOk } from '../helpers/git.js';
import { copyDir, removeDir } from '../helpers/project.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, defer } = disposables();
const MARKER = /^(<{7}|={7}|>{7})/m;

async function cli(dir: string, ...args: string[]) {
  return runBuiltCli(args, { cwd: dir, env });
}

async function addAndCommit(dir: string, ...names: string[]): Promise<void> {
  for (const name of names) {
    const run = await cli(dir, 'add', name);
    expect(run.code, run.stderr).toBe(0);
  }
  gitOk(dir, 'add', '-A');
  gitOk(dir, 'commit', '-q', '-m', `add ${names.join(', ')}`);
}

const CONFIG = (url: string) => `import { defineConfig } from 'promptlock';

export default defineConfig({
  baseUrl: '${url}',
  // The prompts this app renders.
  prompts: [
    '@acme/a', // the greeting
  ],
});
`;

/** The repository right after `git merge` stopped on the conflicts; each test works on a copy. */
let conflicted: string;

beforeAll(async () => {
  const upstream = await mkdtemp(path.join(tmpdir(), 'promptlock-upstream-'));
  defer(() => removeDir(upstream));
  for (const pkg of ['a', 'b', 'c', 'd']) {
    await mkdir(path.join(upstream, 'acme', pkg), { recursive: true });
    await writeFile(path.join(upstream, 'acme', pkg, 'v1.md'), `Prompt ${pkg} for {{name}}.\n`);
  }
  const server = await serve({ dir: upstream });

  const repo = await mkdtemp(path.join(tmpdir(), 'promptlock-config-merge-'));
  defer(() => removeDir(repo));
  gitOk(repo, 'init', '-q', '-b', 'main');
  await writeFile(path.join(repo, 'prompts.config.ts'), CONFIG(server.url));
  expect((await cli(repo, 'sync')).code).toBe(0);
  gitOk(repo, 'add', '-A');
  gitOk(repo, 'commit', '-q', '-m', 'project');

  gitOk(repo, 'checkout', '-q', '-b', 'x');
  await addAndCommit(repo, '@acme/c', '@acme/b');
  gitOk(repo, 'checkout', '-q', '-b', 'y', 'main');
  await addAndCommit(repo, '@acme/c', '@acme/d');

  gitOk(repo, 'checkout', '-q', 'x');
  const merge = git(repo, 'merge', '--no-edit', 'y');
  expect(merge.code).not.toBe(0);
  expect(merge.out).toContain('CONFLICT (content): Merge conflict in prompts.config.ts');
  expect(await readFile(path.join(repo, 'prompts.config.ts'), 'utf8')).toMatch(MARKER);
  conflicted = repo;
}, 180_000);

async function conflictedCopy(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-config-merged-'));
  defer(() => removeDir(dir));
  await copyDir(conflicted, dir);
  return dir;
}

it('every command that loads the config names the conflict, its line and what to do (exit 2)', async () => {
  const dir = await conflictedCopy();
  const text = await readFile(path.join(dir, 'prompts.config.ts'), 'utf8');
  const line = text.split('\n').findIndex((l) => l.startsWith('<<<<<<<')) + 1;
  for (const command of [['generate'], ['check'], ['diff'], ['add', '@acme/a']]) {
    const run = await cli(dir, ...command);
    expect(run.code, `${command.join(' ')}: ${run.stderr}`).toBe(2);
    expect(run.stderr).toContain(`prompts.config.ts:${line} has unresolved git merge conflict markers`);
    expect(run.stderr).toContain("Keep both sides' entries, then run `promptlock sync`");
    expect(run.stderr).not.toMatch(/Unexpected token|ParseError/);
  }
  expect(await readFile(path.join(dir, 'prompts.config.ts'), 'utf8')).toBe(text);
});

it('sync keeps both sides, each entry once, in sorted order, with the comments, and says so', async () => {
  const dir = await conflictedCopy();
  const run = await cli(dir, 'sync');
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toMatch(/Merged the git conflict in prompts\.config\.ts \(1 conflict\)/);
  expect(run.stderr).toContain('added @acme/d from the other branch');
  expect(run.stderr).toContain('kept @acme/c once');
  const config = await readFile(path.join(dir, 'prompts.config.ts'), 'utf8');
  expect(config).toBe(
    CONFIG('URL')
      .replace("'@acme/a', // the greeting\n", "'@acme/a', // the greeting\n    '@acme/b',\n    '@acme/c',\n    '@acme/d',\n")
      .replace("'URL'", /baseUrl: ('[^']*')/.exec(config)![1]!),
  );
  const lock = JSON.parse(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8')) as { prompts: Record<string, unknown> };
  expect(Object.keys(lock.prompts).sort()).toEqual(['@acme/a', '@acme/b', '@acme/c', '@acme/d']);
  const check = await cli(dir, 'check');
  expect(check.code, check.stderr).toBe(0);
});

it('a conflict that holds code is left to the user, with the reason', async () => {
  const dir = await conflictedCopy();
  const file = path.join(dir, 'prompts.config.ts');
  const text = await readFile(file, 'utf8');
  const edited = text.replace(/^=======$/m, '  concurrency: 4,\n=======');
  await writeFile(file, edited);
  const run = await cli(dir, 'sync');
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('that promptlock cannot resolve: the conflict holds more than prompt entries ("concurrency: 4,")');
  expect(await readFile(file, 'utf8')).toBe(edited);
});
