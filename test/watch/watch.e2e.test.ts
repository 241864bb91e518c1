/**
 * `promptlock watch`, the built CLI, against the real local service on loopback: a snapshot edit
 * regenerates the module, a published version reaches it within one poll, an outage keeps the last
 * good module and recovers, config edits (good and bad) are picked up. Every watch is stopped with
 * SIGINT by PID and must exit 0 and be gone. Run `npx tsup` first. The cases run at the same time:
 * each has its own service, project and watch process, and most of their time is waiting for polls.
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { isAlive } from '../../src/util/is-alive.js';
import { type CliProcess, killLeftovers, runCliInProcess as runBuiltCli, startBuiltCli } from '../helpers/cli.js';
import { allText, makeProject, removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';
import { waitUntil } from '../helpers/wait-until.js';

// A live-looking key, built at run time: it must never appear in any output or file.
const KEY = `sk_live_${'WatchE2eKey'.padEnd(38, 'z')}wxyz`;
const MODULE = 'src/generated/prompts.ts';
// 6,000/min → a budget of 20 per 1 s poll: a few prompts are all checked on every poll.
const FAST = ['--interval', '1', '--rate-limit', '6000'];

const servers: RunningServer[] = [];
const dirs: string[] = [];
const outputs: string[] = [];

async function serve(count: number, port = 0, dir?: string): Promise<{ server: RunningServer; served: string }> {
  const served = await writeServedFolder(dir, count, 1);
  if (!dir) dirs.push(served);
  const server = await startServer({ dir: served, port, keys: [{ key: KEY }] });
  servers.push(server);
  return { server, served };
}

async function project(server: RunningServer, prompts: string[]): Promise<string> {
  const dir = await makeProject({ baseUrl: server.url, prompts, lockfile: 'prompts.lock.json', snapshots: 'prompts', output: MODULE });
  dirs.push(dir);
  return dir;
}

function watch(dir: string, args: string[] = FAST): CliProcess {
  return startBuiltCli(['watch', ...args], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } });
}

const read = (dir: string, file: string) => readFile(path.join(dir, file), 'utf8').catch(() => '');

/** Stops the watch by PID: exit code 0, no signal, process gone, nothing half-written left behind. */
async function stopCleanly(dir: string, proc: CliProcess): Promise<void> {
  const { code, signal } = await proc.stop();
  outputs.push(proc.stdout(), proc.stderr());
  expect({ code, signal }).toEqual({ code: 0, signal: null });
  expect(isAlive(proc.pid)).toBe(false);
  expect(proc.stderr()).toContain('Stopped.');
  const work = await readdir(path.join(dir, '.promptlock')).catch(() => []);
  expect(work.filter((name) => name.startsWith('tx-') || name === 'run.lock')).toEqual([]);
  const generated = await readdir(path.join(dir, path.dirname(MODULE))).catch(() => []);
  expect(generated.filter((name) => name.endsWith('.tmp'))).toEqual([]);
}

afterAll(async () => {
  killLeftovers();
  for (const output of outputs) expect(output).not.toContain(KEY);
  for (const dir of dirs) expect(await allText(dir)).not.toContain(KEY);
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(dirs.map(removeDir));
});

describe.concurrent('promptlock watch (built CLI)', () => {
  it('syncs at start, and regenerates the module from a hand-edited snapshot (as generate does), saying it no longer matches the lockfile', async () => {
    const { server } = await serve(3);
    const dir = await project(server, ['@bulk/*']);
    const proc = watch(dir);
    await proc.waitFor(/Watching for changes/);
    expect(proc.stderr()).toMatch(/Synced: \+ @bulk\/prompt-0000 v1, \+ @bulk\/prompt-0001 v1, \+ @bulk\/prompt-0002 v1/);
    expect(await read(dir, MODULE)).toContain('"@bulk/prompt-0001"');

    const file = path.join(dir, 'prompts/bulk/prompt-0001.json');
    const snapshot = JSON.parse(await readFile(file, 'utf8')) as { content: string[] };
    snapshot.content[0] = `${snapshot.content[0]} EDITED-BY-HAND`;
    const mark = proc.stderr().length;
    await writeFile(file, `${JSON.stringify(snapshot, null, 2)}\n`);
    await waitUntil('the edit in the module', async () => (await read(dir, MODULE)).includes('EDITED-BY-HAND'));
    await proc.waitFor(/snapshot of @bulk\/prompt-0001 does not match the lockfile/, mark);
    expect(proc.stderr().slice(mark)).toMatch(/Regenerated src\/generated\/prompts\.ts \(3 prompts\)/);

    // The module is exactly what `generate` builds from these files.
    const generate = await runBuiltCli(['generate', '--force'], { cwd: dir });
    expect(generate.stderr).toContain('is up to date');
    expect(generate.code).toBe(0);
    await stopCleanly(dir, proc);
  });

  it('a version published in the served folder reaches the module within one poll, and says what changed', async () => {
    const { server, served } = await serve(3);
    const dir = await project(server, ['@bulk/*']);
    const proc = watch(dir, [...FAST, '--verbose']);
    await proc.waitFor(/Watching for changes/);
    const before = await read(dir, MODULE);
    expect(before).not.toContain('revision 2');

    // The last poll that finished before the new version was served.
    const polled = () => [...proc.stderr().matchAll(/Poll (\d+):/g)].map((m) => Number(m[1]));
    await writeServedFolder(served, 1, 2);
    await server.reload();
    const lastBefore = Math.max(...polled());
    await waitUntil('revision 2 in the module', async () => (await read(dir, MODULE)).includes('revision 2'));
    // The module is written inside the sync's commit; the line saying so comes after it returns.
    await proc.waitFor(/Synced: ~ @bulk\/prompt-0000 v1 → v2/);
    const synced = proc.stderr().indexOf('Synced: ~ @bulk/prompt-0000 v1 → v2');
    expect(synced).toBeGreaterThan(0);
    // The poll that found it: the one in progress at publish time may have missed it, the next may not.
    const finder = Math.max(
      ...[
        ...proc
          .stderr()
          .slice(0, synced)
          .matchAll(/Poll (\d+):/g),
      ].map((m) => Number(m[1])),
    );
    expect(finder).toBeLessThanOrEqual(lastBefore + 2);
    // Our own writes come back as file events: they regenerate nothing (the module is already
    // current) and start nothing else — by the next poll, no "Regenerated" line has appeared.
    await proc.waitFor(/Poll \d+:/, synced);
    expect(proc.stderr().slice(synced)).not.toContain('Regenerated');
    const lock = JSON.parse(await read(dir, 'prompts.lock.json'));
    expect(lock.prompts['@bulk/prompt-0000'].version).toBe('v2');
    await stopCleanly(dir, proc);

    const check = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir });
    expect(check.code).toBe(0);
  });

  it('a service outage keeps the last good module, says why, and recovers when the service is back on the same port', async () => {
    const { server, served } = await serve(2);
    const dir = await project(server, ['@bulk/*']);
    const proc = watch(dir);
    await proc.waitFor(/Watching for changes/);
    const good = await read(dir, MODULE);

    const mark = proc.stderr().length;
    await server.close();
    const failed = await proc.waitFor(/warning: Poll failed; keeping the last good files\. ([^\n]*)/, mark);
    expect(failed[1]).toMatch(/127\.0\.0\.1/);
    expect(await read(dir, MODULE)).toBe(good);

    // Published while the service was down; visible once it is back.
    await writeServedFolder(served, 1, 2);
    const back = await startServer({ dir: served, port: server.port, keys: [{ key: KEY }] });
    servers.push(back);
    await proc.waitFor(/Poll works again\./, mark);
    await waitUntil('revision 2 in the module', async () => (await read(dir, MODULE)).includes('revision 2'));
    await stopCleanly(dir, proc);
  });

  it('a prompt the config names is deleted upstream: says so (404) and keeps the last good module', async () => {
    const { server, served } = await serve(2);
    const dir = await project(server, ['@bulk/prompt-0000', '@bulk/prompt-0001']);
    const proc = watch(dir);
    await proc.waitFor(/Watching for changes/);
    const good = await read(dir, MODULE);
    await rm(path.join(served, 'bulk', 'prompt-0001.json'));
    await server.reload();
    await proc.waitFor(
      /warning: Poll failed; keeping the last good files\. Prompt @bulk\/prompt-0001 was not found on the service \(404\)/,
    );
    expect(await read(dir, MODULE)).toBe(good);
    await stopCleanly(dir, proc);
  });

  it('Ctrl-C during the first sync exits 0 and leaves the store complete or untouched', async () => {
    const served = await writeServedFolder(undefined, 3, 1);
    dirs.push(served);
    // Slow answers, so the signal arrives while the first sync is still fetching.
    const server = await startServer({ dir: served, port: 0, keys: [{ key: KEY }], latencyMs: 300 });
    servers.push(server);
    const dir = await project(server, ['@bulk/*']);
    const proc = watch(dir);
    await waitUntil('the first request of the watch', () => server.stats.byRoute.get ?? 0);
    expect(proc.stderr()).not.toContain('Watching for changes');
    await stopCleanly(dir, proc);
    const lockfile = await read(dir, 'prompts.lock.json');
    if (lockfile) expect((await runBuiltCli(['check', '--no-typecheck'], { cwd: dir })).code).toBe(0);
    else expect(await read(dir, MODULE)).toBe('');
  });

  it('picks up config edits (add, remove); an invalid edit warns and keeps the last good config', async () => {
    const { server, served } = await serve(3);
    const dir = await project(server, ['@bulk/prompt-0000', '@bulk/prompt-0001']);
    const configFile = path.join(dir, 'prompts.config.json');
    const config = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
    const lockNames = async () =>
      Object.keys(JSON.parse((await read(dir, 'prompts.lock.json')) || '{"prompts":{}}').prompts as object).join(',');
    const proc = watch(dir);
    await proc.waitFor(/Watching for changes/);
    expect(await lockNames()).toBe('@bulk/prompt-0000,@bulk/prompt-0001');

    await writeFile(configFile, JSON.stringify({ ...config, prompts: ['@bulk/prompt-0001', '@bulk/prompt-0002'] }, null, 2));
    await waitUntil('the lockfile to follow the config', async () => (await lockNames()) === '@bulk/prompt-0001,@bulk/prompt-0002');
    // A removal breaks the callers of its function: first, and marked (as sync marks it).
    await proc.waitFor(/Synced: - @bulk\/prompt-0000 {2}BREAKING, \+ @bulk\/prompt-0002 v1\n/);
    const module = await read(dir, MODULE);
    expect(module).toContain('"@bulk/prompt-0002"');
    expect(module).not.toContain('"@bulk/prompt-0000"');

    const mark = proc.stderr().length;
    await writeFile(configFile, JSON.stringify({ ...config, concurrency: 'lots' }, null, 2));
    await proc.waitFor(/The edited config is not valid; keeping the last good config until it is fixed\. [^\n]*concurrency/, mark);

    // Still running on the last good config: a new version of a prompt it asks for arrives.
    await writeServedFolder(served, 2, 2);
    await server.reload();
    await waitUntil('revision 2 of prompt-0001 in the module', async () => (await read(dir, MODULE)).includes('prompt-0001, revision 2'));
    expect(await lockNames()).toBe('@bulk/prompt-0001,@bulk/prompt-0002');
    await stopCleanly(dir, proc);
  });
});
