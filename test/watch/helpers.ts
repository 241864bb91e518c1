/**
 * Running `promptlock watch` (the built CLI) as a child process the test owns: its output as it
 * arrives, event-based waits, and a stop by PID with SIGINT that checks the process is gone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { BIN } from '../helpers/cli.js';

/** Polls `check` every 50 ms until it returns something truthy; fails after `timeoutMs`. */
export async function waitUntil<T>(what: string, check: () => T | Promise<T>, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface WatchProcess {
  pid: number;
  /** Everything written to stderr so far (human output). */
  stderr(): string;
  stdout(): string;
  /** Waits until stderr (from `from` on) matches `pattern`; returns the match. */
  waitFor(pattern: RegExp, from?: number): Promise<RegExpMatchArray>;
  /** Sends SIGINT by PID and resolves with how the process ended. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();

/** Kills (SIGKILL, by PID) any watch a failed test left running. */
export function killLeftovers(): void {
  for (const child of running) if (child.pid && child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
  running.clear();
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function startWatchCli(args: readonly string[], options: { cwd: string; env: Record<string, string> }): WatchProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', NO_COLOR: '1', ...options.env };
  delete env.PROMPTLOCK_BASE_URL;
  const child = spawn(process.execPath, [BIN, 'watch', ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  return {
    pid: child.pid!,
    stderr: () => stderr,
    stdout: () => stdout,
    waitFor: (pattern, from = 0) =>
      waitUntil(`${pattern} in the output of watch:\n${stderr}`, () => {
        if (child.exitCode !== null) throw new Error(`watch exited with ${child.exitCode}:\n${stderr}`);
        return stderr.slice(from).match(pattern);
      }),
    async stop() {
      process.kill(child.pid!, 'SIGINT');
      const guard = setTimeout(() => child.exitCode === null && process.kill(child.pid!, 'SIGKILL'), 30_000);
      const result = await exited;
      clearTimeout(guard);
      return result;
    },
  };
}
