import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/promptlock.js', import.meta.url));

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI as a child process; it is killed (by PID) if it outlives `timeoutMs`. Fails if
 * the API key it was given appears anywhere in its output.
 */
export function runBuiltCli(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number; killAfterMs?: number },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', NO_COLOR: '1' };
    delete env.PROMPTLOCK_API_KEY;
    delete env.BAYT_API_KEY;
    delete env.PROMPTLOCK_BASE_URL;
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timers: NodeJS.Timeout[] = [];
    timers.push(setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), options.timeoutMs ?? 60_000));
    if (options.killAfterMs !== undefined) {
      timers.push(setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), options.killAfterMs));
    }
    child.on('error', reject);
    child.on('close', (code, signal) => {
      timers.forEach(clearTimeout);
      // Every run of the suite checks it: the API key given never appears in any output.
      const key = env.PROMPTLOCK_API_KEY ?? env.BAYT_API_KEY;
      if (key && args[0] !== 'serve' && (stdout.includes(key) || stderr.includes(key))) {
        reject(new Error(`promptlock ${args.join(' ')} printed the API key in its output`));
        return;
      }
      resolve({ code, signal, stdout, stderr });
    });
  });
}
