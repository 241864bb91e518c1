/**
 * promptlock as a user installs it: a real `npm pack` of this repository (run `npm run build`
 * first), installed into apps from npm's cache, never the registry. Shared by the tests that
 * need a packed install (test/init/prepare-install.e2e.test.ts, test/init/ci-workflow.e2e.test.ts).
 */
import { exec } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';

export const REPO = path.resolve(import.meta.dirname, '../..');

/** Whether the CLI is built: a packed install needs `dist/`. */
export const BUILT = existsSync(path.join(REPO, 'dist/cli.js'));

/** npm's flags for an install from its cache: no registry, no audit, no funding notes. */
export const NPM_OFFLINE = '--offline --no-audit --no-fund';

/** The environment of a shell command: no key or base URL of the machine's own, plain output. */
export function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', NO_COLOR: '1' };
  for (const key of ['PROMPTLOCK_API_KEY', 'BAYT_API_KEY', 'PROMPTLOCK_BASE_URL']) delete env[key];
  return { ...env, ...extra };
}

export interface ShellRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a shell command to its end (killed after 90 s). */
export function sh(command: string, cwd: string, env: NodeJS.ProcessEnv = shellEnv()): Promise<ShellRun> {
  return new Promise((resolve) => {
    exec(command, { cwd, env, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** `npm pack` of this repository into `dir`; returns the tarball's path. */
export async function packPromptlock(dir: string): Promise<string> {
  const packed = await sh(`npm pack --pack-destination "${dir}" --silent`, REPO);
  if (packed.code !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  return path.join(dir, (await readdir(dir)).find((name) => name.endsWith('.tgz'))!);
}
