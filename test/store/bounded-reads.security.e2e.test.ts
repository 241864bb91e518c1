/**
 * Security regression (issue 30, item 3): every file promptlock reads from a checkout may be a
 * committed link to a device, a FIFO, or huge. Read without a bound, a link to /dev/zero in place
 * of a journal, a `.failed.json`, the lockfile or a snapshot grew `npm install` by ~900 MB/s, and a
 * FIFO config hung it; the lockfile was read through a link out of the project (`check` printed the
 * first characters of the target). Every read goes through one bounded reader: a regular file only,
 * at most a cap (the config's limits for the snapshots folder), never through a link where none is
 * legitimate. A command that would hang or read without end if this broke runs as the built CLI (a
 * process to kill); the others run in this process. The real local service, real files.
 */
import { execFileSync } from 'node:child_process';
import { cp, lstat, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { LOCAL_TEST_KEY, type RunningServer } from '../../src/server/index.js';
import { runBuiltCli, runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { writeJournalFile } from '../helpers/journal.js';
import { removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project, defer } = disposables();
/** Far below what an unbounded read of /dev/zero or a FIFO takes (until memory runs out, or forever). */
const QUICK = { timeoutMs: 20_000 };
const SNAPSHOT = 'prompts/bulk/prompt-0000.json';

let server: RunningServer;
/** Synced once with the default config: `synced()` copies it. */
let base: string;
beforeAll(async () => {
  const folder = await writeServedFolder(undefined, 2, 1);
  defer(() => removeDir(folder));
  server = await serve({ dir: folder });
  base = await project({ baseUrl: server.url, prompts: ['@bulk/*'] });
  const run = await runCliInProcess(['sync'], { cwd: base, env });
  expect(run.code, run.stderr).toBe(0);
});

/** A synced project: a copy of `base`, or synced here with `config` added. */
async function synced(config?: Record<string, unknown>): Promise<string> {
  if (!config) {
    const dir = await project({});
    await cp(base, dir, { recursive: true });
    return dir;
  }
  const dir = await project({ baseUrl: server.url, prompts: ['@bulk/*'], ...config });
  const run = await runCliInProcess(['sync'], { cwd: dir, env });
  expect(run.code, run.stderr).toBe(0);
  return dir;
}

const replaceWithLink = async (dir: string, file: string, target: string) => {
  await rm(path.join(dir, file), { force: true });
  await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
  await symlink(target, path.join(dir, file));
};

it.each([
  ['the lockfile', 'prompts.lock.json', ['generate']],
  ['a snapshot', SNAPSHOT, ['generate']],
  ['a committed journal', '.promptlock/tx-1-1.journal', ['check', '--no-typecheck']],
  ["a journal's failure marker", '.promptlock/tx-1-1.failed.json', ['check', '--no-typecheck']],
  ['the run lock', '.promptlock/run.lock', ['sync']],
])('%s linked to /dev/zero: refused at once, naming it', async (_what, file, command) => {
  const dir = await synced();
  if (file.endsWith('.failed.json')) {
    // A marker is read only beside a whole committed journal: one of an interrupted sync, as a crash leaves it.
    await writeJournalFile(dir, [], []);
  }
  await replaceWithLink(dir, file, '/dev/zero');
  const run = await runBuiltCli(command!, { cwd: dir, env, ...QUICK });
  expect(run.signal, 'killed: the read did not end').toBeNull();
  expect(run.code, run.stderr + run.stdout).not.toBe(0);
  expect(run.stderr).toMatch(/Refusing to (read|write|inspect)/);
  expect(run.stderr).toContain(file.split('/').pop());
});

it('a FIFO config: refused at once as one, naming it (it hung generate, so npm install)', async () => {
  const dir = await project({ prompts: [] });
  await rm(path.join(dir, 'prompts.config.json'));
  execFileSync('mkfifo', [path.join(dir, 'prompts.config.json')]);
  const run = await runBuiltCli(['generate'], { cwd: dir, env: {}, ...QUICK });
  expect(run.signal, 'killed: the read never ended').toBeNull();
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`Refusing to read prompts.config.json: it is a FIFO (named pipe)`);
});

it('the lockfile linked to a file out of the project: check refuses it without printing a character of it', async () => {
  const dir = await synced();
  const away = await project({});
  const secret = path.join(away, 'secret.txt');
  await writeFile(secret, 'SECRET-TOKEN-1234 {"not": "a lockfile"}\n');
  await replaceWithLink(dir, 'prompts.lock.json', secret);
  const run = await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {}, ...QUICK });
  expect(run.code).toBe(1);
  expect(run.stdout + run.stderr).not.toContain('SECRET');
  expect(run.stderr).toContain('is a symbolic link');
  expect(run.stderr).toContain('leading out of the project');
});

it("a snapshot over the cap the config's limits allow: refused, naming the file and the cap, never read whole", async () => {
  const dir = await synced({ limits: { promptBytes: 4096, contextFileBytes: 4096 } });
  const file = path.join(dir, SNAPSHOT);
  await writeFile(file, `${(await readFile(file, 'utf8')).trimEnd()}${' '.repeat(16 * 4096)}\n`);
  const run = await runCliInProcess(['generate'], { cwd: dir, env: {}, ...QUICK });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`it holds more than ${16 * 4096} bytes`);
  expect(run.stderr).toContain('prompt-0000.json');
});

it("a FIFO at a snapshot's name before the first sync: sync neither hangs on it nor reads it, and replaces it with the snapshot", async () => {
  const dir = await project({ baseUrl: server.url, prompts: ['@bulk/*'] });
  await mkdir(path.join(dir, 'prompts/bulk'), { recursive: true });
  execFileSync('mkfifo', [path.join(dir, SNAPSHOT)]);
  const run = await runBuiltCli(['sync'], { cwd: dir, env, ...QUICK });
  expect(run.signal, 'killed: the sync hung on the FIFO').toBeNull();
  expect(run.code, run.stderr).toBe(0);
  expect((await lstat(path.join(dir, SNAPSHOT))).isFile()).toBe(true);
  expect((await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} })).code).toBe(0);
});
