/**
 * The built CLI against the real local service on loopback: full sync, no-op re-sync, both
 * envelopes and error shapes, 401/403/404 with the key masked and nothing written, --frozen offline.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { type CliRun, runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { allText, makeProject, removeDir, storeTree } from '../helpers/project.js';

const WORKSPACE = path.resolve('examples/workspace');
// A live-looking key, built at run time: it must never appear in any output or file.
const KEY = `sk_live_${'E2eSecretKey'.padEnd(38, 'q')}wxyz`;
const MASKED = 'sk_live…wxyz';

const servers: RunningServer[] = [];
const dirs: string[] = [];
const outputs: string[] = [];

async function serve(options: Partial<Parameters<typeof startServer>[0]> = {}): Promise<RunningServer> {
  const server = await startServer({ dir: WORKSPACE, port: 0, keys: [{ key: KEY }], ...options });
  servers.push(server);
  return server;
}

async function project(config: Record<string, unknown>): Promise<string> {
  const dir = await makeProject({ lockfile: 'prompts.lock.json', snapshots: 'prompts', output: 'src/generated/prompts.ts', ...config });
  dirs.push(dir);
  return dir;
}

async function cli(args: string[], cwd: string, env: Record<string, string | undefined> = { PROMPTLOCK_API_KEY: KEY }): Promise<CliRun> {
  const run = await runBuiltCli(args, { cwd, env });
  outputs.push(run.stdout, run.stderr);
  return run;
}

afterAll(async () => {
  for (const dir of dirs) {
    expect(await allText(dir)).not.toContain(KEY);
  }
  for (const output of outputs) expect(output).not.toContain(KEY);
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(dirs.map(removeDir));
});

describe('sync against promptlock serve', () => {
  let server: RunningServer;
  let dir: string;
  let first: CliRun;

  beforeAll(async () => {
    server = await serve();
    dir = await project({ baseUrl: server.url });
    first = await cli(['sync'], dir);
  });

  it('syncs every listed prompt of the sample workspace', async () => {
    expect(first.stderr).toMatch(/Synced \d+ prompts/);
    expect(first.code).toBe(0);
    const lock = JSON.parse(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8'));
    const listed = await fetch(`${server.url}/v1/prompts?limit=100`, { headers: { authorization: `Bearer ${KEY}` } }).then(
      (r) => r.json() as Promise<{ prompts: Array<{ packageName: string }> }>,
    );
    const names = (listed.prompts as Array<{ packageName: string }>).map((p) => p.packageName.replace(/:.*$/, '')).sort();
    expect(Object.keys(lock.prompts)).toEqual(names);
    expect(names.length).toBeGreaterThanOrEqual(12);
    for (const name of names) {
      const [ws, pkg] = name.slice(1).split('/');
      const snapshot = JSON.parse(await readFile(path.join(dir, 'prompts', ws!, `${pkg}.json`), 'utf8'));
      expect(snapshot.metadata.generatedAt).toBeUndefined();
      expect(lock.prompts[name].version).toBe(snapshot.version);
    }
    const module = await readFile(path.join(dir, 'src/generated/prompts.ts'), 'utf8');
    expect(module).toContain('export const prompts');
    const check = await cli(['check'], dir, {});
    expect(check.stderr).toContain('agree');
    expect(check.code).toBe(0);
  });

  it('re-syncing with nothing changed upstream leaves every file byte-identical and untouched', async () => {
    const before = await storeTree(dir, { mtimes: true });
    const again = await cli(['sync'], dir);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('up to date');
    expect(await storeTree(dir, { mtimes: true })).toEqual(before);
  });

  it('prints one JSON summary with --json', async () => {
    const run = await cli(['sync', '--json'], dir);
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({ ok: true, added: [], changed: [], removed: [], written: [] });
    expect(summary.prompts).toBeGreaterThanOrEqual(12);
  });

  it.each([
    ['wrapped', 'flat'],
    ['bare', 'flat'],
    ['wrapped', 'nested'],
  ] as const)('gives identical files with envelope %s and %s errors', async (envelope, errors) => {
    const other = await serve({ envelope, errors });
    const otherDir = await project({ baseUrl: other.url });
    const run = await cli(['sync'], otherDir);
    expect(run.code).toBe(0);
    const files = await storeTree(otherDir);
    expect(files).toEqual(await storeTree(dir));
  });

  it('generates offline with sync --frozen from the committed store, service stopped', async () => {
    const offline = await project({ baseUrl: 'http://127.0.0.1:9' });
    const { cp } = await import('node:fs/promises');
    await cp(path.join(dir, 'prompts'), path.join(offline, 'prompts'), { recursive: true });
    await cp(path.join(dir, 'prompts.lock.json'), path.join(offline, 'prompts.lock.json'));
    const run = await cli(['sync', '--frozen'], offline, {});
    expect(run.stderr).not.toContain('error');
    expect(run.code).toBe(0);
    expect(await readFile(path.join(offline, 'src/generated/prompts.ts'), 'utf8')).toBe(
      await readFile(path.join(dir, 'src/generated/prompts.ts'), 'utf8'),
    );
  });

  it('fails --frozen clearly when the config asks for something the lockfile lacks', async () => {
    const offline = await project({ baseUrl: 'http://127.0.0.1:9', prompts: ['@acme/not-locked'] });
    const { cp } = await import('node:fs/promises');
    await cp(path.join(dir, 'prompts.lock.json'), path.join(offline, 'prompts.lock.json'));
    const run = await cli(['sync', '--frozen'], offline, {});
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('The config and the lockfile disagree');
    expect(run.stderr).toContain('@acme/not-locked is in the config but not in the lockfile');
  });

  it('fetches a missing snapshot in --frozen at exactly the locked version and verifies it', async () => {
    const partial = await project({ baseUrl: server.url });
    const { cp } = await import('node:fs/promises');
    await cp(path.join(dir, 'prompts'), path.join(partial, 'prompts'), { recursive: true });
    await cp(path.join(dir, 'prompts.lock.json'), path.join(partial, 'prompts.lock.json'));
    const lock = JSON.parse(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8'));
    const name = Object.keys(lock.prompts)[0]!;
    const [ws, pkg] = name.slice(1).split('/');
    await rm(path.join(partial, 'prompts', ws!, `${pkg}.json`));
    server.resetStats();
    const run = await cli(['sync', '--frozen'], partial);
    expect(run.code).toBe(0);
    expect(server.stats.byRoute.get).toBe(1);
    expect(server.stats.byRoute.list ?? 0).toBe(0);
    expect(await storeTree(partial)).toEqual(await storeTree(dir));
  });

  it('a glob or a name whose workspace is a typo of a listed one: "did you mean"', async () => {
    const glob = await cli(['sync'], await project({ baseUrl: server.url, prompts: ['@acmee/*'] }));
    expect(glob.code).toBe(1);
    expect(glob.stderr).toContain('@acmee/* matched no prompt: the service lists none in workspace "acmee".');
    expect(glob.stderr).toContain('Did you mean @acme/*? Check the workspace name');
    const exact = await cli(['sync'], await project({ baseUrl: server.url, prompts: ['@acm/welcome'] }));
    expect(exact.code).toBe(1);
    expect(exact.stderr).toContain(`Prompt @acm/welcome was not found (404): the service at ${server.url} lists`);
    expect(exact.stderr).toContain('Did you mean workspace "acme"? Check that baseUrl');
  });
});

describe('service errors', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve({ keys: [{ key: KEY, workspace: 'acme' }] });
  });

  async function expectNothingWritten(dir: string) {
    expect(Object.keys(await storeTree(dir))).toEqual([]);
  }

  it('401: says the key was rejected, masked, and writes nothing', async () => {
    const dir = await project({ baseUrl: server.url });
    const wrong = `sk_live_${'WrongKey'.padEnd(38, 'z')}abcd`;
    const run = await runBuiltCli(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: wrong } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('sk_live…abcd');
    expect(run.stderr).toMatch(/401/);
    expect(run.stderr + run.stdout).not.toContain(wrong);
    await expectNothingWritten(dir);
  });

  it('401 without any key tells how to set one', async () => {
    const dir = await project({ baseUrl: server.url });
    const run = await cli(['sync'], dir, {});
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('PROMPTLOCK_API_KEY');
    await expectNothingWritten(dir);
  });

  it('403: names the workspace the key cannot read, masked, and writes nothing', async () => {
    const dir = await project({ baseUrl: server.url, prompts: ['@acme/*', '@globex/welcome'] });
    const run = await cli(['sync'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/403/);
    expect(run.stderr).toContain(MASKED);
    await expectNothingWritten(dir);
  });

  it('a workspace glob that matches nothing the key can list is an error, not an empty lock', async () => {
    const dir = await project({ baseUrl: server.url, prompts: ['@acme/*', '@globex/*'] });
    const run = await cli(['sync'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('@globex/* matched no prompt: the service lists none in workspace "globex".');
    await expectNothingWritten(dir);
  });

  it('404: names the prompt, suggests close matches, and writes nothing', async () => {
    const listed = await fetch(`${server.url}/v1/prompts?limit=100`, { headers: { authorization: `Bearer ${KEY}` } }).then(
      (r) => r.json() as Promise<{ prompts: Array<{ packageName: string }> }>,
    );
    const real = (listed.prompts as Array<{ packageName: string }>)[0]!.packageName.replace(/:.*$/, '');
    const typo = `${real}x`;
    const dir = await project({ baseUrl: server.url, prompts: [typo] });
    const run = await cli(['sync'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Prompt ${typo} was not found on the service (404)`);
    expect(run.stderr).toContain(`Did you mean ${real}`);
    await expectNothingWritten(dir);
  });

  it('404 for a selector the package does not have says so, instead of suggesting the same name', async () => {
    const dir = await project({ baseUrl: server.url, prompts: ['@acme/welcome:v99'] });
    const run = await cli(['sync'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('@acme/welcome exists, but has no version v99 on the service (404).');
    expect(run.stderr).not.toContain('Did you mean');
    await expectNothingWritten(dir);
  });

  it('--json lists every failed prompt, and nothing is written', async () => {
    const dir = await project({ baseUrl: server.url, prompts: ['@acme/nope-one', '@acme/nope-two', '@acme/welcome'] });
    const run = await cli(['sync', '--json'], dir);
    expect(run.code).toBe(1);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({ command: 'sync', ok: false, exitCode: 1, error: { message: '2 prompts failed; nothing was written.' } });
    expect(doc.errors.map((e: { message: string }) => e.message)).toEqual([
      'Prompt @acme/nope-one was not found on the service (404).',
      'Prompt @acme/nope-two was not found on the service (404).',
    ]);
    await expectNothingWritten(dir);
  });

  it('keeps the previous files intact when a later sync fails', async () => {
    const dir = await project({ baseUrl: server.url, prompts: ['@acme/*'] });
    expect((await cli(['sync'], dir)).code).toBe(0);
    const before = await storeTree(dir, { mtimes: true });
    await writeFile(
      path.join(dir, 'prompts.config.json'),
      JSON.stringify({ baseUrl: server.url, prompts: ['@acme/*', '@acme/does-not-exist'] }),
    );
    const run = await cli(['sync'], dir);
    expect(run.code).toBe(1);
    expect(await storeTree(dir, { mtimes: true })).toEqual(before);
  });
});
