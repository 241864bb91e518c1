/**
 * The built CLI's `promptlock serve` in a child process (run `npx tsup` first), for the adoption
 * tests: its URL, and the requests it received, counted from its `--verbose` access log.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll } from 'vitest';
import { BIN } from './cli.js';

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Access-log lines so far (one per request received): `127.0.0.1 GET /v1/prompts 200 3ms`. */
  requests: () => string[];
  /** Waits until at least `count` requests are logged (bounded), then returns them all. */
  settle: (count: number) => Promise<string[]>;
  stop: () => Promise<void>;
}

const running = new Set<ChildProcess>();
afterAll(() => {
  for (const child of running) if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
});

const ACCESS_LINE = /^\S+ (?:GET|POST|PUT|DELETE|HEAD|OPTIONS|PATCH) \S+ \d{3} \d+ms$/;

export function startServe(args: readonly string[], cwd: string): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--verbose', ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', CI: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const requests = () => err.split('\n').filter((line) => ACCESS_LINE.test(line));
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /^promptlock serve listening on (http:\/\/\S+) /m.exec(out);
      if (match) {
        resolve({
          url: match[1]!,
          child,
          stdout: () => out,
          stderr: () => err,
          requests,
          async settle(count) {
            for (let i = 0; i < 100 && requests().length < count; i++) await new Promise((r) => setTimeout(r, 20));
            return requests();
          },
          async stop() {
            if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGTERM');
            await exited;
            running.delete(child);
          },
        });
      }
    });
    void exited.then(() => reject(new Error(`serve exited before listening: ${err}`)));
  });
}
