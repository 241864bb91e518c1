/**
 * Item 4 (Monorepos): a three-app npm workspace synced with `--recursive` by the built CLI against
 * `promptlock serve` (run `npx tsup` first), requests counted from serve's access log: one list,
 * one get per distinct package name asked for, per-app summaries, and an app with a bad config
 * named while the others commit. Then `generate`, `check` and `diff --recursive` over it.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { startServer } from '../../src/server/index.js';
import { runCliInProcess as runBuiltCli, type ServeProcess, startServe } from '../helpers/cli.js';
import { removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

let served: string;
let root: string;
let serve: ServeProcess;

const APPS = {
  // Lists (a glob), and gets prompt-0000…0003 at :latest (what a glob asks for).
  a: { prompts: ['@bulk/*'] },
  // prompt-0001:latest as a asked for it (one get for both); prompt-0002:v1 is another request.
  b: { prompts: ['@bulk/prompt-0001:latest', '@bulk/prompt-0002:v1'] },
  // The list again (cached), and prompt-0003:v1.
  c: { prompts: ['@bulk/*', '@bulk/prompt-0003:v1'] },
};

async function writeApp(name: string, config: Record<string, unknown>): Promise<void> {
  const dir = path.join(root, 'apps', name);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), `${JSON.stringify({ name: `@shop/${name}`, private: true }, null, 2)}\n`);
  await writeFile(
    path.join(dir, 'prompts.config.json'),
    `${JSON.stringify({ baseUrl: serve.url, output: 'src/prompts.ts', ...config }, null, 2)}\n`,
  );
}

const env = () => ({ PROMPTLOCK_API_KEY: LOCAL_TEST_KEY });
const cli = (args: string[], cwd = root) => runBuiltCli(args, { cwd, env: env() });

/** Requests the server received since `from`: lists and gets, by body-less access-log line. */
async function requestsSince(from: number, expected: number) {
  const lines = (await serve.settle(from + expected)).slice(from);
  return {
    lists: lines.filter((l) => / GET \/v1\/prompts(\?\S*)? /.test(l)),
    gets: lines.filter((l) => / POST \/v1\/prompts\/get /.test(l)),
    all: lines,
  };
}

beforeAll(async () => {
  served = await writeServedFolder(await mkdtemp(path.join(tmpdir(), 'promptlock-mono-served-')), 4, 1);
  serve = await startServe(['--dir', served], served);
  root = await mkdtemp(path.join(tmpdir(), 'promptlock-mono-'));
  await writeFile(path.join(root, 'package.json'), `${JSON.stringify({ name: 'shop', private: true, workspaces: ['apps/*'] }, null, 2)}\n`);
  // A package with no promptlock config is not an app.
  await mkdir(path.join(root, 'apps', 'docs'), { recursive: true });
  await writeFile(path.join(root, 'apps', 'docs', 'package.json'), '{ "name": "@shop/docs" }\n');
});

afterAll(async () => {
  await serve?.stop();
  for (const dir of [served, root]) if (dir) await removeDir(dir);
});

it('a bad config in one app is reported by its name; the others commit, with one list and one get per distinct prompt', async () => {
  await writeApp('a', APPS.a);
  await writeApp('b', APPS.b);
  await writeApp('c', { ...APPS.c, concurency: 2 });
  const before = serve.requests().length;
  const run = await cli(['sync', '--recursive']);
  expect(run.code).toBe(1);
  // Per-app blocks: the heading, then the app's own summary.
  expect(run.stderr).toMatch(
    /@shop\/a \(apps\/a\)\n(?: {2}.*\n)*? {2}✔ Synced 4 prompts in [\d.]+ s: 4 added, 0 changed, 0 removed, 0 unchanged \(5 requests\)/,
  );
  expect(run.stderr).toMatch(
    /@shop\/b \(apps\/b\)\n(?: {2}.*\n)*? {2}✔ Synced 2 prompts in [\d.]+ s: 2 added, 0 changed, 0 removed, 0 unchanged \(1 request\)/,
  );
  expect(run.stderr).toMatch(/@shop\/c \(apps\/c\)\nerror: @shop\/c: .*"concurency".*apps\/c\/prompts\.config\.json/);
  expect(run.stderr).toMatch(/error: sync --recursive: 3 apps, 2 ok, 1 failed \(6 requests to the service in all\): @shop\/c \(apps\/c\)/);
  expect(run.stderr).not.toContain('docs');
  const seen = await requestsSince(before, 6);
  expect(seen.lists).toHaveLength(1);
  // a: 0000…0003 at :latest; b: 0001:latest (a's answer) and 0002:v1.
  expect(seen.gets).toHaveLength(5);
  expect(seen.all).toHaveLength(6);
  for (const app of ['a', 'b']) {
    expect(existsSync(path.join(root, 'apps', app, 'prompts.lock.json'))).toBe(true);
    expect(existsSync(path.join(root, 'apps', app, 'src', 'prompts.ts'))).toBe(true);
    expect((await cli(['check', '--no-typecheck'], path.join(root, 'apps', app))).code).toBe(0);
  }
  expect(existsSync(path.join(root, 'apps', 'c', 'prompts.lock.json'))).toBe(false);
});

it('all three apps, --json: an array of per-app results; floating versions fetched once for the run', async () => {
  await writeApp('c', APPS.c);
  const before = serve.requests().length;
  const run = await cli(['sync', '--recursive', '--json']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const results = JSON.parse(run.stdout) as Array<{
    app: string;
    dir: string;
    exitCode: number;
    ok: boolean;
    prompts: number;
    added: unknown[];
    requests: number;
  }>;
  expect(results.map((r) => [r.app, r.dir, r.exitCode, r.ok, r.prompts, r.added.length])).toEqual([
    ['@shop/a', 'apps/a', 0, true, 4, 0],
    ['@shop/b', 'apps/b', 0, true, 2, 0],
    ['@shop/c', 'apps/c', 0, true, 4, 4],
  ]);
  // a lists and re-fetches its 4 floating prompts; b's floating 0001:latest is a's answer and
  // 0002:v1 is locked; c's list and 0000…0002:latest are a's answers, 0003:v1 is new.
  expect(results.map((r) => r.requests)).toEqual([5, 0, 1]);
  const seen = await requestsSince(before, 6);
  expect(seen.lists).toHaveLength(1);
  expect(seen.gets).toHaveLength(5);
  expect(seen.all).toHaveLength(6);
});

it('generate, check and diff --recursive report per app', async () => {
  await rm(path.join(root, 'apps', 'b', 'src', 'prompts.ts'));
  const generate = await cli(['generate', '--recursive']);
  expect(generate.code).toBe(0);
  expect(generate.stderr).toMatch(/@shop\/a \(apps\/a\)\n {2}✔ src\/prompts\.ts is up to date/);
  expect(generate.stderr).toMatch(/@shop\/b \(apps\/b\)\n {2}✔ Generated src\/prompts\.ts \(2 prompts\)/);
  expect(generate.stderr).toMatch(/✔ generate --recursive: 3 apps, 3 ok, 0 failed\n$/);

  const check = await cli(['check', '--recursive']);
  expect(check.code).toBe(0);
  expect(check.stderr).toMatch(/@shop\/c \(apps\/c\)\n {2}✔ 4 prompts checked: lockfile, snapshots and module agree/);

  // One app's store edited by hand: check fails for it, by name, and exits 1.
  const module = path.join(root, 'apps', 'a', 'src', 'prompts.ts');
  await writeFile(module, `${await readFile(module, 'utf8')}\n// edited\n`);
  const failing = await cli(['check', '--recursive', '--no-typecheck', '--json']);
  expect(failing.code).toBe(1);
  const checked = JSON.parse(failing.stdout) as Array<{ app: string; ok: boolean; exitCode: number }>;
  expect(checked.map((r) => [r.app, r.ok, r.exitCode])).toEqual([
    ['@shop/a', false, 1],
    ['@shop/b', true, 0],
    ['@shop/c', true, 0],
  ]);
  expect((await cli(['generate', '--recursive', '--quiet'])).code).toBe(0);

  const before = serve.requests().length;
  const diff = await cli(['diff', '--recursive']);
  expect(diff.code).toBe(0);
  expect(diff.stdout).toContain('@shop/a (apps/a):');
  expect(diff.stdout).toContain('@shop/c (apps/c):');
  // The floating prompts of a (b's 0001:latest is a's answer); the pinned ones are on disk.
  const seen = await requestsSince(before, 5);
  expect(seen.lists).toHaveLength(1);
  expect(seen.gets).toHaveLength(4);
  expect(seen.all).toHaveLength(5);
});

it('usage: names, --config, and a folder outside any workspace exit 2', async () => {
  const names = await cli(['sync', '--recursive', '@bulk/prompt-0001']);
  expect(names.code).toBe(2);
  expect(names.stderr).toContain('--recursive runs every app');
  const config = await cli(['check', '--recursive', '--config', 'apps/a/prompts.config.json']);
  expect(config.code).toBe(2);
  expect(config.stderr).toContain('cannot be combined with --config');
  const lone = await mkdtemp(path.join(tmpdir(), 'promptlock-mono-lone-'));
  try {
    await writeFile(path.join(lone, 'package.json'), '{ "name": "lone" }\n');
    const none = await cli(['generate', '--recursive'], lone);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--recursive: no workspace found from');
  } finally {
    await removeDir(lone);
  }
});

it('one rate budget: two apps over a 5-per-window limit see no 429, the second app paced by what the first used', async () => {
  const eight = await writeServedFolder(undefined, 8, 1);
  const tight = await startServe(['--dir', eight, '--limit-per-minute', '5', '--minute-ms', '1500'], eight);
  const ws = await mkdtemp(path.join(tmpdir(), 'promptlock-mono-budget-'));
  try {
    await writeFile(path.join(ws, 'pnpm-workspace.yaml'), 'packages:\n  - apps/*\n');
    // Nothing shared: one spends the whole window's 5 requests, two's first request must wait for
    // the next window (a client of its own would not know, and get a 429).
    const names = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `@bulk/prompt-000${from + i}:v1`);
    const apps = { one: names(0, 5), two: names(5, 8) };
    for (const [app, prompts] of Object.entries(apps)) {
      await mkdir(path.join(ws, 'apps', app), { recursive: true });
      await writeFile(path.join(ws, 'apps', app, 'prompts.config.json'), JSON.stringify({ baseUrl: tight.url, prompts, concurrency: 3 }));
    }
    const run = await cli(['sync', '--recursive', '--json'], ws);
    expect(run.code).toBe(0);
    const results = JSON.parse(run.stdout) as Array<{ app: string; requests: number; rateLimited: number }>;
    expect(results.map((r) => [r.app, r.requests, r.rateLimited])).toEqual([
      ['apps/one', 5, 0],
      ['apps/two', 3, 0],
    ]);
    const received = await tight.settle(8);
    expect(received.filter((line) => / 429 /.test(line))).toEqual([]);
    expect(received).toHaveLength(8);
  } finally {
    await tight.stop();
    await removeDir(ws);
    await removeDir(eight);
  }
});

it('an app whose glob skipped a refused prompt is not failed: the others commit, and the run exits 3', async () => {
  const folder = await mkdtemp(path.join(tmpdir(), 'promptlock-mono-refused-'));
  const ws = await mkdtemp(path.join(tmpdir(), 'promptlock-mono-refused-ws-'));
  const files: Record<string, string> = {
    'ws/good/v1.md': 'Good {{name}}',
    // Two types for one variable (README, "Placeholders"): refused, so a glob skips it.
    'ws/bad/v1.md': '{{count:number}} and {{count:string}}',
  };
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(folder, file)), { recursive: true });
    await writeFile(path.join(folder, file), text);
  }
  const server = await startServer({ dir: folder, port: 0 });
  try {
    await writeFile(path.join(ws, 'pnpm-workspace.yaml'), 'packages:\n  - apps/*\n');
    for (const [app, prompts] of Object.entries({ glob: ['@ws/*'], exact: ['@ws/good'] })) {
      await mkdir(path.join(ws, 'apps', app), { recursive: true });
      await writeFile(path.join(ws, 'apps', app, 'prompts.config.json'), JSON.stringify({ baseUrl: server.url, prompts }));
    }
    const run = await cli(['sync', '--recursive', '--json'], ws);
    expect(run.code).toBe(3);
    const results = JSON.parse(run.stdout) as Array<{ app: string; exitCode: number; ok?: boolean; skipped: Array<{ name: string }> }>;
    expect(results.map((r) => [r.app, r.exitCode, r.ok, r.skipped.map((s) => s.name)])).toEqual([
      ['apps/exact', 0, true, []],
      ['apps/glob', 3, true, ['@ws/bad']],
    ]);
    const text = await cli(['sync', '--recursive'], ws);
    expect(text.code).toBe(3);
    expect(text.stderr).toContain('sync --recursive: 2 apps, 2 ok, 0 failed');
  } finally {
    await server.close();
    for (const dir of [folder, ws]) await removeDir(dir);
  }
});
