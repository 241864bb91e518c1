/**
 * git, run as a program with argument arrays (never a shell), bounded in time and output, isolated
 * from what a user's git configuration could add to the output we read: no pager, no external
 * diff or text conversion, no signature lines. The one way promptlock reads a repository's history
 * (`promptlock which`, docs/traces.md).
 */
import { execFile, spawn } from 'node:child_process';
import { PromptlockError } from '../errors.js';

/** Longest a git command may run. */
const GIT_TIMEOUT_MS = 60_000;
/** Most bytes read from one `git log`. */
const MAX_LOG_BYTES = 64 * 1024 * 1024;

/** Options every git command of ours gets before its own: nothing of the user's config changes what we parse. */
const FIXED = ['-c', 'core.quotepath=off', '-c', 'log.showSignature=false', '--no-pager'];

function gitEnv(): NodeJS.ProcessEnv {
  // No prompt for credentials, messages in English (we match one of them), no pager.
  return { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', LANGUAGE: 'C', GIT_PAGER: 'cat' };
}

function gitMissing(cause: unknown): PromptlockError {
  return new PromptlockError('git is not installed (or not on PATH): `promptlock which` reads the lockfile’s history with it.', {
    hint: 'Install git, then run the command again in the clone of the repository.',
    cause,
  });
}

/** Runs `git args…` in `cwd` and resolves to its stdout; rejects with its stderr when it fails. */
export function git(cwd: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...FIXED, ...args],
      { cwd, env: gitEnv(), timeout: GIT_TIMEOUT_MS, maxBuffer: MAX_LOG_BYTES, encoding: 'utf8', windowsHide: true },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return reject(gitMissing(error));
        reject(Object.assign(new Error(`git ${args[0]} failed: ${stderr.trim() || error.message}`), { stderr, cause: error }));
      },
    );
  });
}

/**
 * The content of each `<revision>:<path>` asked for, in order, from one `git cat-file --batch`
 * (undefined where it does not exist). Each content is handed to `use` as soon as it is read and
 * not kept: a hundred lockfiles of a large project never sit in memory at once.
 */
export function readBlobs<T>(cwd: string, objects: readonly string[], use: (content: Buffer) => T): Promise<Array<T | undefined>> {
  if (objects.length === 0) return Promise.resolve([]);
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...FIXED, 'cat-file', '--batch'], {
      cwd,
      env: gitEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const out: Array<T | undefined> = [];
    let pending: Buffer = Buffer.alloc(0);
    let stderr = '';
    let failed: unknown;
    const timer = setTimeout(() => child.kill('SIGKILL'), GIT_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      // Each answer: `<oid> blob <size>\n<content>\n`, or `<name> missing\n`.
      for (;;) {
        const eol = pending.indexOf(10);
        if (eol === -1) return;
        const header = pending.subarray(0, eol).toString('utf8');
        if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
          out.push(undefined);
          pending = pending.subarray(eol + 1);
          continue;
        }
        const size = Number(header.split(' ')[2]);
        if (pending.length < eol + 1 + size + 1) return;
        try {
          out.push(use(pending.subarray(eol + 1, eol + 1 + size)));
        } catch (error) {
          failed ??= error;
          out.push(undefined);
        }
        pending = pending.subarray(eol + 1 + size + 1);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject((error as NodeJS.ErrnoException).code === 'ENOENT' ? gitMissing(error) : error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (failed !== undefined) return reject(failed);
      if (code !== 0 || out.length !== objects.length)
        return reject(new Error(`git cat-file failed: ${stderr.trim() || `exit code ${code}`}`));
      resolve(out);
    });
    child.stdin.end(objects.map((object) => `${object}\n`).join(''));
  });
}
