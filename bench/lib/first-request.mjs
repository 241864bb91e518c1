/**
 * Process start → first request: spawns the built CLI (`sync`) in a project whose config points at
 * a loopback listener of this process, and times from just before the spawn to the arrival of the
 * first request's headers, and the CPU time (user + system, from /proc) the CLI used until then,
 * which a loaded box inflates far less than wall time. The listener answers 404 and the CLI is
 * stopped by its PID right after, so nothing else is measured.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/promptlock.js', import.meta.url));

/** User + system CPU ms of a live process (Linux /proc; undefined elsewhere). */
function cpuOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // Fields 14 and 15 of stat (utime, stime), in clock ticks of 10 ms on Linux.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** A listener on 127.0.0.1; `next()` resolves with the time the next request arrives. */
export async function firstRequestProbe() {
  let waiting;
  const server = createServer((_req, res) => {
    const at = performance.now();
    waiting?.(at);
    waiting = undefined;
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"probe"}}');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    /** `{ ms, cpuMs }` from spawn to the first request of `promptlock <args>` run in `cwd`. */
    async time(cwd, args = ['sync']) {
      const arrived = new Promise((resolve) => (waiting = resolve));
      const start = performance.now();
      const child = spawn(process.execPath, [BIN, ...args], {
        cwd,
        env: {
          ...process.env,
          CI: 'true',
          NO_COLOR: '1',
          PROMPTLOCK_API_KEY: 'sk_test_PromptlockLocalTestKey00000000000000000000',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const timer = setTimeout(() => child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 30_000);
      const at = await Promise.race([arrived, exited.then(() => undefined)]);
      const cpuMs = at === undefined ? undefined : cpuOf(child.pid);
      if (child.exitCode === null) process.kill(child.pid, 'SIGKILL');
      await exited;
      clearTimeout(timer);
      if (at === undefined) throw new Error(`promptlock ${args.join(' ')} exited before any request: ${stderr.slice(0, 500)}`);
      return { ms: at - start, cpuMs };
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
