/**
 * The built CLI against the real local service: context files, incremental pinned prompts, a second
 * sync refused while one runs, diff output, and check catching drift locally and remotely.
 */
import { access, cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY, type RunningServer } from '../../src/server/index.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project, defer } = disposables();

const read = (dir: string, file: string) => readFile(path.join(dir, file), 'utf8');

describe('context files', () => {
  it('downloads file items next to the snapshot, size-checked and covered by the lockfile; URL items are only recorded', async () => {
    const server = await serve({ dir: path.resolve('examples/workspace') });
    const dir = await project({ baseUrl: server.url, prompts: ['@acme/support-reply'] });
    const run = await runBuiltCli(['sync', '--with-files'], { cwd: dir, env });
    expect(run.code).toBe(0);
    const downloaded = await readFile(path.join(dir, 'prompts/acme/support-reply.files/refund-policy.md'));
    expect(downloaded.equals(await readFile('examples/workspace/acme/support-reply/files/refund-policy.md'))).toBe(true);
    const lock = JSON.parse(await read(dir, 'prompts.lock.json'));
    const files = Object.values(lock.prompts['@acme/support-reply'].files) as Array<{ path: string; size: number; integrity: string }>;
    expect(files).toEqual([
      { path: 'acme/support-reply.files/refund-policy.md', size: downloaded.length, integrity: expect.stringMatching(/^sha256-/) },
    ]);
    expect(server.stats.byRoute.file).toBe(1); // the URL item (https://example.com/kb) was not fetched

    await writeFile(path.join(dir, 'prompts/acme/support-reply.files/refund-policy.md'), 'tampered');
    const check = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('refund-policy.md');
    expect(check.stderr).toContain('does not match the lockfile');
  });
});

describe('pruning', () => {
  it('removes only the snapshots and files it wrote, never other files in the snapshots folder', async () => {
    const server = await serve({ dir: path.resolve('examples/workspace') });
    const dir = await project({
      baseUrl: server.url,
      snapshots: 'data',
      prompts: ['@acme/welcome', '@acme/support-reply'],
      contextFiles: true,
    });
    const { mkdir } = await import('node:fs/promises');
    const mine = { 'data/locales/en.json': '{"hello":"world"}', 'data/config/app.json': '{}', 'data/config/app.files/data.txt': 'keep me' };
    for (const [file, text] of Object.entries(mine)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
    // An orphaned snapshot (its package is in no lockfile): promptlock's, so it goes too.
    await cp(path.join(dir, 'data/acme/welcome.json'), path.join(dir, 'data/acme/default.json'));
    await writeFile(
      path.join(dir, 'data/acme/default.json'),
      (await read(dir, 'data/acme/default.json')).replace('"packageName": "@acme/welcome', '"packageName": "@acme/default'),
    );
    await writeFile(
      path.join(dir, 'prompts.config.json'),
      JSON.stringify({ baseUrl: server.url, snapshots: 'data', prompts: ['@acme/welcome'], contextFiles: true }),
    );
    const run = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('1 removed');
    for (const [file, text] of Object.entries(mine)) expect(await read(dir, file)).toBe(text);
    const exists = (file: string) =>
      access(path.join(dir, file)).then(
        () => true,
        () => false,
      );
    expect(await exists('data/acme/support-reply.json')).toBe(false);
    expect(await exists('data/acme/support-reply.files')).toBe(false);
    expect(await exists('data/acme/default.json')).toBe(false);
    expect(await exists('data/acme/welcome.json')).toBe(true);
  });
});

describe('incremental sync', () => {
  let server: RunningServer;
  let folder: string;
  beforeAll(async () => {
    folder = await writeServedFolder(undefined, 6, 1);
    defer(() => removeDir(folder));
    server = await serve({ dir: folder });
  });

  it('never fetches a pinned version that is locked and on disk; floating ones once each', async () => {
    const pinned = ['@bulk/prompt-0000:v1', '@bulk/prompt-0001:v1', '@bulk/prompt-0002:v1'];
    const floating = ['@bulk/prompt-0003', '@bulk/prompt-0004:latest'];
    const dir = await project({ baseUrl: server.url, prompts: [...pinned, ...floating] });
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
    server.resetStats();
    const again = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(again.code).toBe(0);
    expect(server.stats.byRoute.get).toBe(floating.length);
    // One list page, which could prove the floating ones unchanged had it named versions (test/sync/list-proves.e2e.test.ts).
    expect(server.stats.byRoute.list ?? 0).toBe(1);
  });

  it('refuses a second sync while one runs, then the first completes', async () => {
    const slow = await serve({ dir: folder, latencyMs: 400 });
    const dir = await project({ baseUrl: slow.url, concurrency: 1 });
    const first = runBuiltCli(['sync'], { cwd: dir, env });
    // Wait until the first run holds the lock.
    for (let i = 0; i < 200; i++) {
      if (
        await access(path.join(dir, '.promptlock/run.lock')).then(
          () => true,
          () => false,
        )
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const second = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/Another promptlock sync is running in this project \(pid \d+/);
    expect((await first).code).toBe(0);
  });
});

describe('diff and check --remote', () => {
  let server: RunningServer;
  let folder: string;
  let dir: string;
  beforeAll(async () => {
    folder = await writeServedFolder(undefined, 3, 1);
    defer(() => removeDir(folder));
    server = await serve({ dir: folder });
    dir = await project({ baseUrl: server.url });
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
    // Upstream: prompt 1 gets a new version.
    const upstream = await project({});
    await writeServedFolder(upstream, 3, 2);
    await cp(path.join(upstream, 'bulk/prompt-0001.json'), path.join(folder, 'bulk/prompt-0001.json'));
    await server.reload();
  });

  it('diff shows the changed lines of the changed prompt only, and writes nothing', async () => {
    const before = await read(dir, 'prompts.lock.json');
    const run = await runBuiltCli(['diff'], { cwd: dir, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('~ @bulk/prompt-0001  v1 → v2');
    expect(run.stdout).toContain('-Line 0 of prompt-0001, revision 1: {{name_0}} says `hi`');
    expect(run.stdout).toContain('+Line 0 of prompt-0001, revision 2: {{name_0}} says `hi`');
    expect(run.stdout).not.toContain('prompt-0000');
    expect(await read(dir, 'prompts.lock.json')).toBe(before);
  });

  it('diff --format markdown fences each text so backticks cannot break out', async () => {
    const run = await runBuiltCli(['diff', '--format', 'markdown'], { cwd: dir, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('### `@bulk/prompt-0001` — v1 → v2');
    expect(run.stdout).toContain('```diff\n@@');
  });

  it('check passes locally but --remote reports the new upstream version and exits 1', async () => {
    expect((await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} })).code).toBe(0);
    const remote = await runBuiltCli(['check', '--remote', '--no-typecheck'], { cwd: dir, env });
    expect(remote.code).toBe(1);
    expect(remote.stderr).toContain('@bulk/prompt-0001: the service now answers v2 for latest (locked v1)');
  });

  it('check reports a snapshot the lockfile does not cover, by its path in the project', async () => {
    const copy = await project({});
    await cp(dir, copy, { recursive: true });
    const text = (await read(copy, 'prompts/bulk/prompt-0000.json')).replace(
      '"packageName": "@bulk/prompt-0000',
      '"packageName": "@bulk/stray',
    );
    await writeFile(path.join(copy, 'prompts/bulk/stray.json'), text);
    const run = await runBuiltCli(['check', '--no-typecheck'], { cwd: copy, env: {} });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('prompts/bulk/stray.json is a snapshot of @bulk/stray, which the lockfile does not have');
    expect(run.stderr).not.toContain(copy);
  });

  it('check reports a hand-edited module and a hand-edited snapshot, all at once', async () => {
    const copy = await project({});
    await cp(dir, copy, { recursive: true });
    await writeFile(path.join(copy, 'src/generated/prompts.ts'), '// edited\n', { flag: 'a' });
    const snapshot = path.join(copy, 'prompts/bulk/prompt-0002.json');
    await writeFile(snapshot, (await readFile(snapshot, 'utf8')).replace('revision 1', 'revision 9'));
    const run = await runBuiltCli(['check', '--json', '--no-typecheck'], { cwd: copy, env: {} });
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.problems).toEqual([
      expect.stringContaining('@bulk/prompt-0002: snapshot'),
      expect.stringContaining('cannot be checked until the snapshots are fixed'),
    ]);
    // The same problems, structured: what, about what, and the printed line is message + fix.
    expect(report.details).toEqual([
      expect.objectContaining({ code: 'snapshot', subject: '@bulk/prompt-0002', fix: expect.stringContaining('promptlock sync --frozen') }),
      expect.objectContaining({ code: 'module-unchecked', subject: 'src/generated/prompts.ts' }),
    ]);
    const printed = (problem: { message: string; fix?: string }) => (problem.fix ? `${problem.message}: ${problem.fix}` : problem.message);
    expect(report.details.map(printed)).toEqual(report.problems);
  });
});
