/**
 * `sync --typecheck`: after a sync that changed a prompt function's parameter, the app's own
 * type-check runs, so the pull request lists the call sites to update (docs/ci.md, "Breaking
 * changes show their call sites"). The project's `typecheck` script when it has one, else
 * `tsc --noEmit` when TypeScript is installed beside a tsconfig.json.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { detectPackageManager } from '../config/package-manager.js';
import { type AppTypecheck, parseCompileErrors } from './compile-errors.js';

/** The script looked for in package.json. */
const SCRIPT = 'typecheck';
/** A type-check still running after this long is stopped: no run can hang. */
const TIMEOUT_MS = 10 * 60_000;
/** Output kept from the type-check; a compiler's error list fits many times over. */
const MAX_OUTPUT = 4 * 1024 * 1024;
/** Lines shown when the output holds no error promptlock can read. */
const LAST_LINES = 10;

interface Command {
  /** As shown to the user. */
  shown: string;
  file: string;
  args: string[];
}

/** What type-checks the app in `rootDir`, or why nothing does. */
export async function typecheckCommand(rootDir: string): Promise<Command | { reason: string }> {
  let scripts: Record<string, unknown> = {};
  try {
    const pkg = JSON.parse((await readFile(path.join(rootDir, 'package.json'), 'utf8')) || '{}') as { scripts?: unknown };
    if (typeof pkg.scripts === 'object' && pkg.scripts !== null) scripts = pkg.scripts as Record<string, unknown>;
  } catch {
    // No package.json, or not JSON: no script to run.
  }
  if (typeof scripts[SCRIPT] === 'string') {
    const [file, ...args] = `${(await detectPackageManager(rootDir)).run} ${SCRIPT}`.split(' ');
    return { shown: [file, ...args].join(' '), file: file!, args };
  }
  let tsc: string;
  try {
    tsc = path.join(path.dirname(createRequire(path.join(rootDir, 'package.json')).resolve('typescript/package.json')), 'bin/tsc');
  } catch {
    return { reason: `it has no "${SCRIPT}" script and TypeScript is not installed` };
  }
  if (!existsSync(path.join(rootDir, 'tsconfig.json'))) return { reason: `it has no "${SCRIPT}" script and no tsconfig.json` };
  return { shown: 'tsc --noEmit', file: process.execPath, args: [tsc, '--noEmit', '--pretty', 'false'] };
}

/**
 * Runs the app's type-check in `rootDir` and reads its errors. The API key is not passed on: the
 * type-check runs the project's own tools, which have no use for it.
 */
export async function typecheckApp(rootDir: string, env: NodeJS.ProcessEnv): Promise<AppTypecheck> {
  const command = await typecheckCommand(rootDir);
  if ('reason' in command) return { status: 'skipped', reason: command.reason };
  const childEnv: NodeJS.ProcessEnv = { ...env, FORCE_COLOR: '0', NO_COLOR: '1' };
  delete childEnv.PROMPTLOCK_API_KEY;
  delete childEnv.BAYT_API_KEY;
  const { code, output, timedOut } = await new Promise<{ code: number | null; output: string; timedOut: boolean }>((resolve) => {
    const windows = process.platform === 'win32';
    // Its own process group, so a timeout stops the compiler the script started too.
    const child = spawn(command.file, command.args, {
      cwd: rootDir,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: !windows,
      shell: windows,
    });
    let text = '';
    const keep = (chunk: string) => {
      if (text.length < MAX_OUTPUT) text += chunk;
    };
    child.stdout.setEncoding('utf8').on('data', keep);
    child.stderr.setEncoding('utf8').on('data', keep);
    let expired = false;
    const timer = setTimeout(() => {
      expired = true;
      if (child.pid !== undefined) process.kill(windows ? child.pid : -child.pid, 'SIGKILL');
    }, TIMEOUT_MS);
    // A command that cannot start (a package manager not installed) is a failed type-check, said as such.
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, output: `${command.shown} could not start: ${error.message}`, timedOut: false });
    });
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ code: exitCode, output: text, timedOut: expired });
    });
  });
  if (code === 0 && !timedOut) return { status: 'passed', command: command.shown };
  const lastLines = output
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .slice(-LAST_LINES);
  return { status: 'failed', command: command.shown, exitCode: code, errors: parseCompileErrors(output, rootDir), lastLines, timedOut };
}
