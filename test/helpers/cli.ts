/**
 * The one place tests run the built CLI (run `npm run build` first): to its end (`runBuiltCli`), or
 * as a long-running child process the test owns (`startBuiltCli`, `startServe`), stopped by PID.
 * Every run checks that the API key it was given appears nowhere in its output.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { memoryIO } from './memory-io.js';
import { waitUntil } from './wait-until.js';

const BIN = fileURLToPath(new URL('../../bin/promptlock.js', import.meta.url));

interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CliRun extends CliExit {
  stdout: string;
  stderr: string;
}

type CliEnv = Record<string, string | undefined>;

/** The environment of a run: no key or base URL of the machine's own, plain output, then `extra`. */
function cliEnv(extra: CliEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', NO_COLOR: '1' };
  delete env.PROMPTLOCK_API_KEY;
  delete env.BAYT_API_KEY;
  delete env.PROMPTLOCK_BASE_URL;
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/** Every run of the suite checks it: the API key given never appears in any output (`serve` prints its test key). */
function keyLeak(args: readonly string[], env: NodeJS.ProcessEnv, output: string): Error | undefined {
  const key = env.PROMPTLOCK_API_KEY ?? env.BAYT_API_KEY;
  if (key && args[0] !== 'serve' && output.includes(key))
    return new Error(`promptlock ${args.join(' ')} printed the API key in its output`);
  return undefined;
}

/** A command that runs the CLI's command line inside another (`strace`, `script` for a terminal). */
export type Wrapper = (argv: readonly string[]) => string[];

function spawnCli(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, via: Wrapper = (argv) => [...argv]) {
  const [command, ...rest] = via([process.execPath, BIN, ...args]);
  const child = spawn(command!, rest, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  return { child, output };
}

/** Runs the built CLI to its end; it is killed (by PID) if it outlives `timeoutMs` or `killAfterMs`. */
export function runBuiltCli(
  args: readonly string[],
  options: { cwd: string; env?: CliEnv; timeoutMs?: number; killAfterMs?: number; via?: Wrapper },
): Promise<CliRun> {
  const env = cliEnv(options.env);
  const { child, output } = spawnCli(args, options.cwd, env, options.via);
  return new Promise((resolve, reject) => {
    const kill = () => child.pid && process.kill(child.pid, 'SIGKILL');
    const timers = [setTimeout(kill, options.timeoutMs ?? 60_000)];
    if (options.killAfterMs !== undefined) timers.push(setTimeout(kill, options.killAfterMs));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      timers.forEach(clearTimeout);
      const leak = keyLeak(args, env, output.stdout + output.stderr);
      if (leak) reject(leak);
      else resolve({ code, signal, ...output });
    });
  });
}

/**
 * Runs the CLI in this process (`runCli` with streams of its own), for behaviour that needs no
 * process of its own: the same exit code, output and key check as `runBuiltCli`, without the
 * 0.5 s start of a Node.js process. Spawn the built CLI only for argv, kills, installs and bundlers.
 */
export async function runCliInProcess(
  args: readonly string[],
  options: { cwd: string; env?: CliEnv; timeoutMs?: number },
): Promise<CliRun> {
  const env = cliEnv(options.env);
  const io = memoryIO({ env, cwd: options.cwd });
  let timer: NodeJS.Timeout | undefined;
  // A run that outlives `timeoutMs` fails the test instead of hanging it (a process would be killed).
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`promptlock ${args.join(' ')} did not finish in ${options.timeoutMs} ms`)),
      options.timeoutMs ?? 60_000,
    );
  });
  const code = await Promise.race([runCli(args, io), timedOut]).finally(() => clearTimeout(timer));
  const run: CliRun = { code, signal: null, stdout: io.out(), stderr: io.err() };
  const leak = keyLeak(args, env, run.stdout + run.stderr);
  if (leak) throw leak;
  return run;
}

export interface CliProcess {
  pid: number;
  child: ChildProcess;
  stdout(): string;
  /** Everything written to stderr so far (human output). */
  stderr(): string;
  /** Waits until the stream (stderr unless told) from `from` on matches `pattern`; fails if the process ends first. */
  waitFor(pattern: RegExp, from?: number, stream?: 'stdout' | 'stderr'): Promise<RegExpMatchArray>;
  /** How the process ended (once its output is closed); rejects if it printed the API key. */
  exited: Promise<CliExit>;
  /** Sends `signal` (SIGINT unless told) by PID, SIGKILL 30 s later, and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<CliExit>;
}

const running = new Set<ChildProcess>();
const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** Kills (SIGKILL, by PID) any process a failed test left running; also after each file. */
export function killLeftovers(): void {
  for (const child of running) if (child.pid && isRunning(child)) process.kill(child.pid, 'SIGKILL');
  running.clear();
}
afterAll(killLeftovers);

/** Starts the built CLI as a child process the test owns (`watch`, `serve`, a sync to kill midway). */
export function startBuiltCli(args: readonly string[], options: { cwd: string; env?: CliEnv }): CliProcess {
  const env = cliEnv(options.env);
  const { child, output } = spawnCli(args, options.cwd, env);
  running.add(child);
  const exited = new Promise<CliExit>((resolve, reject) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      const leak = keyLeak(args, env, output.stdout + output.stderr);
      if (leak) reject(leak);
      else resolve({ code, signal });
    });
  });
  exited.catch(() => {}); // reported to whoever awaits it
  return {
    pid: child.pid!,
    child,
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    exited,
    waitFor: (pattern, from = 0, stream = 'stderr') =>
      waitUntil(`${pattern} in the ${stream} of promptlock ${args[0]}:\n${output.stderr}`, () => {
        const match = output[stream].slice(from).match(pattern);
        if (!match && !isRunning(child)) throw new Error(`promptlock ${args[0]} exited with ${child.exitCode}:\n${output.stderr}`);
        return match;
      }),
    async stop(signal = 'SIGINT') {
      if (isRunning(child)) process.kill(child.pid!, signal);
      const guard = setTimeout(() => isRunning(child) && process.kill(child.pid!, 'SIGKILL'), 30_000);
      try {
        return await exited;
      } finally {
        clearTimeout(guard);
      }
    },
  };
}

export interface ServeProcess extends CliProcess {
  url: string;
  /** Its start line: `promptlock serve listening on http://127.0.0.1:… (…)`. */
  line: string;
  /** Access-log lines so far (one per request received): `127.0.0.1 GET /v1/prompts 200 3ms`. */
  requests(): string[];
  /** Waits until at least `count` requests are logged (bounded), then returns them all. */
  settle(count: number): Promise<string[]>;
  /** Sends SIGTERM unless told (by PID) and resolves with how it ended. */
  stop(signal?: NodeJS.Signals): Promise<CliExit>;
}

const ACCESS_LINE = /^\S+ (?:GET|POST|PUT|DELETE|HEAD|OPTIONS|PATCH) \S+ \d{3} \d+ms$/;

/** `promptlock serve --port 0 --verbose …args` in `cwd`, resolved once it prints the URL it listens on. */
export async function startServe(args: readonly string[], cwd: string, env?: CliEnv): Promise<ServeProcess> {
  const served = startBuiltCli(['serve', '--port', '0', '--verbose', ...args], { cwd, env });
  const [line, url] = await served.waitFor(/^promptlock serve listening on (http:\/\/\S+) .*$/m, 0, 'stdout');
  const requests = () =>
    served
      .stderr()
      .split('\n')
      .filter((entry) => ACCESS_LINE.test(entry));
  return {
    ...served,
    url: url!,
    line,
    requests,
    async settle(count) {
      for (let i = 0; i < 100 && requests().length < count; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      return requests();
    },
    stop: (signal = 'SIGTERM') => served.stop(signal),
  };
}
