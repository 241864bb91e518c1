/**
 * Finding 14: disk failures are named by path and cause (exit 1), never "unexpected failure … please
 * report it"; a failed staging is removed (a full disk does not stay full); `check` reads the real
 * files when a sync failed after its commit point. Real failures: a small tmpfs (ENOSPC), a tmpfs
 * remounted read-only (EROFS) — these need root, as this machine's tests run — and a file where a
 * folder belongs (ENOTDIR), which needs nothing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { jsonFailure, reportError } from '../../src/cli/format-error.js';
import { createLogger } from '../../src/cli/logger.js';
import { LOCAL_TEST_KEY, type RunningServer } from '../../src/server/index.js';
import { runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { memoryIO } from '../helpers/memory-io.js';
import { removeDir, storeTree } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project, defer } = disposables();

let folder: string;
let server: RunningServer;
beforeAll(async () => {
  folder = await writeServedFolder(undefined, 60, 1);
  defer(() => removeDir(folder));
  server = await serve({ dir: folder });
});

/** Mounts a tmpfs of `size` at `dir`, unmounted after the file; false when this machine cannot. */
function mountTmpfs(dir: string, size: string): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' }).status === 0;
  if (mounted) defer(async () => void spawnSync('umount', ['-l', dir], { stdio: 'ignore' }));
  return mounted;
}
const canMount = process.platform === 'linux' && process.getuid?.() === 0;

describe('disk failures are named by path and cause', () => {
  it("any file-system error reaching the CLI is reported as the disk's, with path and cause, never as a bug", async () => {
    const dir = await project({});
    await writeFile(path.join(dir, 'a-file'), 'x');
    const error = await readFile(path.join(dir, 'a-file/inside.json')).catch((e: unknown) => e);
    const memory = memoryIO();
    const logger = createLogger({
      stdout: memory.stdout,
      stderr: memory.stderr,
      quiet: false,
      verbose: false,
      color: false,
      secrets: [],
    });
    expect(reportError(error, logger, false)).toBe(1);
    expect(memory.err()).toContain(
      `Cannot open ${path.join(dir, 'a-file/inside.json')}: a part of the path is a file, not a folder (ENOTDIR).`,
    );
    expect(memory.err()).not.toContain('unexpected failure');
    expect(memory.err()).not.toContain('please report it');
    expect(jsonFailure('sync', 1, error).error).toMatchObject({ code: 'ENOTDIR', message: expect.stringContaining('a-file/inside.json') });
  });

  it('a file where a folder belongs (ENOTDIR): exit 1, path and cause, nothing staged left, nothing written', async () => {
    const dir = await project({ baseUrl: server.url, prompts: ['@bulk/prompt-0000'], output: 'gen.txt/prompts.ts' });
    await writeFile(path.join(dir, 'gen.txt'), 'a file, not a folder');
    const run = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Cannot write gen.txt/prompts.ts: a part of the path is a file, not a folder (ENOTDIR).');
    expect(run.stderr).not.toContain('unexpected failure');
    expect((await readdir(path.join(dir, '.promptlock'))).filter((n) => n.startsWith('tx-'))).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual(['.promptlock', 'gen.txt', 'prompts.config.json']);
  });

  it.skipIf(!canMount)(
    'no space left while staging (ENOSPC): exit 1, path and cause, the staging is removed, the previous files stand',
    async () => {
      const dir = await project({ baseUrl: server.url, prompts: ['@bulk/prompt-0000'] });
      expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
      const before = await storeTree(dir);
      // promptlock's work folder (where a sync writes its journal) on a disk of 64 KiB; 60 prompts need ~350 KiB.
      expect(mountTmpfs(path.join(dir, '.promptlock'), '64k')).toBe(true);
      await writeFile(path.join(dir, 'prompts.config.json'), JSON.stringify({ baseUrl: server.url, prompts: ['@bulk/*'] }));
      const run = await runBuiltCli(['sync'], { cwd: dir, env });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/Cannot write \.promptlock\/tx-[\d-]+\.pending: no space left on the device \(ENOSPC\)\./);
      expect(run.stderr).toContain('Free some space');
      expect(run.stderr).not.toContain('unexpected failure');
      expect(await readdir(path.join(dir, '.promptlock'))).toEqual(['.gitignore']); // the journal and run lock gone
      const used = execFileSync('df', ['--output=used', '-k', path.join(dir, '.promptlock')], { encoding: 'utf8' })
        .split('\n')[1]!
        .trim();
      expect(Number(used)).toBeLessThan(16); // the space is free again
      expect(await storeTree(dir)).toEqual(before);
      expect((await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} })).code).toBe(1); // config asks for more than is locked
    },
  );

  it.skipIf(!canMount)(
    'a read-only snapshots folder (EROFS) after the commit point: named; check fails on the real files; the next sync completes',
    async () => {
      const served = await writeServedFolder(undefined, 3, 1);
      defer(() => removeDir(served));
      const upstream = await serve({ dir: served });
      const dir = await project({ baseUrl: upstream.url });
      const snapshots = path.join(dir, 'prompts');
      await mkdir(snapshots);
      expect(mountTmpfs(snapshots, '1m')).toBe(true);
      expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
      await writeServedFolder(served, 3, 2);
      await upstream.reload();
      execFileSync('mount', ['-o', 'remount,ro', snapshots]);
      const run = await runBuiltCli(['sync'], { cwd: dir, env });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/Cannot write prompts\/bulk\/prompt-000\d\.json: the file system is read-only \(EROFS\)\./);
      expect(run.stderr).not.toContain('unexpected failure');
      // The new snapshots are only staged: check must not pass on files that are not there.
      const check = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} });
      expect(check.code).toBe(1);
      expect(check.stderr).toContain('an earlier sync failed while writing its changes');
      expect(JSON.parse(await readFile(path.join(snapshots, 'bulk/prompt-0000.json'), 'utf8')).version).toBe('v1');

      execFileSync('mount', ['-o', 'remount,rw', snapshots]);
      const resume = await runBuiltCli(['sync'], { cwd: dir, env });
      expect(resume.code, resume.stderr).toBe(0);
      expect(JSON.parse(await readFile(path.join(snapshots, 'bulk/prompt-0000.json'), 'utf8')).version).toBe('v2');
      expect((await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} })).code).toBe(0);
    },
  );
});
