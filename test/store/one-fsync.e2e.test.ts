/**
 * A commit costs one fsync of its journal and one of its folder, however many files it writes
 * (counted by strace on the built CLI syncing from the real local service).
 */
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const { serve, project, defer } = disposables();
const hasStrace = process.platform === 'linux' && spawnSync('strace', ['-V'], { stdio: 'ignore' }).status === 0;

/** Runs the built CLI under strace; resolves to its exit code and the number of fsync + fdatasync calls. */
async function tracedSync(cwd: string): Promise<{ code: number | null; syncs: number }> {
  const out = path.join(cwd, 'strace.txt');
  const strace = (argv: readonly string[]) => ['strace', '-f', '-c', '-o', out, '-e', 'trace=fsync,fdatasync', ...argv];
  const { code } = await runBuiltCli(['sync'], { cwd, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY }, via: strace });
  const rows = (await readFile(out, 'utf8')).split('\n').map((line) => line.trim().split(/\s+/));
  const calls = (name: string) => Number(rows.find((row) => row.at(-1) === name)?.[3] ?? 0);
  return { code, syncs: calls('fsync') + calls('fdatasync') };
}

describe('one durable write per commit', () => {
  it.skipIf(!hasStrace)('a sync writing 120 files fsyncs twice: the journal and its folder', async () => {
    const folder = await writeServedFolder(undefined, 120, 1);
    defer(() => removeDir(folder));
    const server = await serve({ dir: folder });
    const dir = await project({ baseUrl: server.url, concurrency: 16 });
    const run = await tracedSync(dir);
    expect(run.code).toBe(0);
    expect(run.syncs).toBe(2);
  });
});
