/**
 * Issue 19, item 22: a run lock written on another host (committed by mistake, or left by a killed
 * container on a shared folder) is never stale by its pid, which this host cannot see: it expires
 * once its heartbeat (the lock's modification time, refreshed by its holder) has stopped for two
 * minutes, and the takeover is said on stderr. A fresh one still stops the run. Real files; the
 * built CLI against the real local service.
 */
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { acquireRunLock } from '../../src/store/run-lock.js';
import { runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const { serve, project, defer } = disposables();
const OTHER_HOST = `ci-runner-${hostname()}-elsewhere`;
/** A lock as another machine wrote it: its pid means nothing here (it may even run on this host). */
const foreignLock = JSON.stringify({
  pid: process.pid,
  host: OTHER_HOST,
  command: 'sync',
  startedAt: '2026-01-01T00:00:00.000Z',
  token: 't',
});

async function plantLock(root: string, ageSeconds: number): Promise<string> {
  const file = path.join(root, '.promptlock/run.lock');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, foreignLock);
  const then = new Date(Date.now() - ageSeconds * 1000);
  await utimes(file, then, then);
  return file;
}

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'promptlock-lock-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a run lock from another host', () => {
  it('whose heartbeat stopped over two minutes ago is taken over, with a warning naming it', async () => {
    const file = await plantLock(root, 10 * 60);
    // Said through `warn` (by default a process warning on stderr, which would leak into the test run's output).
    const warnings: string[] = [];
    const lock = await acquireRunLock(root, 'sync', { warn: (message) => warnings.push(message) });
    expect(JSON.parse(await readFile(file, 'utf8')).host).toBe(hostname());
    await lock.release();
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `took over the run lock of sync \\(pid ${process.pid}, started 2026-01-01T00:00:00.000Z\\): it was written on ${OTHER_HOST} and its heartbeat stopped 6\\d\\d s ago`,
        ),
      ),
    ]);
  });

  it('with a recent heartbeat stops the run, naming the host and when it expires', async () => {
    await plantLock(root, 30);
    const run = acquireRunLock(root, 'sync');
    await expect(run).rejects.toThrow(`Another promptlock sync is running in this project (pid ${process.pid} on ${OTHER_HOST}`);
    await expect(acquireRunLock(root, 'sync')).rejects.toMatchObject({
      hint: expect.stringContaining('expires 120 s after its last heartbeat'),
    });
  });

  it('a holder keeps its heartbeat: its lock stays fresh while it runs', async () => {
    const lock = await acquireRunLock(root, 'sync', { heartbeatMs: 50 });
    const file = path.join(root, '.promptlock/run.lock');
    const past = new Date(Date.now() - 10 * 60 * 1000);
    await utimes(file, past, past);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(Date.now() - (await stat(file)).mtimeMs).toBeLessThan(5_000);
    await lock.release();
  });
});

describe('the built CLI', () => {
  let url: string;
  beforeAll(async () => {
    const folder = await writeServedFolder(undefined, 2, 1);
    defer(() => removeDir(folder));
    url = (await serve({ dir: folder })).url;
  });

  it('sync takes over a committed lock of another host and says so on stderr', async () => {
    const dir = await project({ baseUrl: url, prompts: ['@bulk/*'] });
    await plantLock(dir, 10 * 60);
    const run = await runBuiltCli(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`took over the run lock of sync`);
    expect(run.stderr).toContain(`written on ${OTHER_HOST}`);
  });
});
