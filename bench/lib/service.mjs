/**
 * Starts the local Prompt Service (dist's `startServer`) in a child process on 127.0.0.1 and returns
 * a handle: its URL, its request counters, and `close()`, which stops the child by its PID.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./serve-child.mjs', import.meta.url));
const ANSWER_TIMEOUT_MS = 60_000;

export async function startService(options) {
  const child = fork(CHILD, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));

  /** Sends one message and waits for the answer of type `want` (bounded). */
  const ask = (message, want) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`service child did not answer ${message.type} in time`)), ANSWER_TIMEOUT_MS);
      const onMessage = (answer) => {
        if (answer.type === 'error') done(new Error(`service child: ${answer.message}`));
        else if (answer.type === want) done(undefined, answer);
      };
      const onExit = (code) => done(new Error(`service child exited (${code}) before answering ${message.type}`));
      function done(error, answer) {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (error) reject(error);
        else resolve(answer);
      }
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send(message);
    });

  let url;
  try {
    ({ url } = await ask({ type: 'start', options }, 'started'));
  } catch (error) {
    process.kill(child.pid, 'SIGKILL');
    await exited;
    throw error;
  }
  return {
    url,
    pid: child.pid,
    stats: async () => (await ask({ type: 'stats' }, 'stats')).stats,
    resetStats: async () => {
      await ask({ type: 'reset' }, 'reset');
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        process.kill(child.pid, 'SIGTERM');
        const timer = setTimeout(() => child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}
