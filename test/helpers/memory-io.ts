import { PassThrough } from 'node:stream';
import type { CliIO } from '../../src/cli/context.js';

/** In-memory stdout/stderr for `runCli`, with what was written to each. */
export function memoryIO(options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  const io: CliIO = { stdout, stderr, env: options.env ?? {}, cwd: options.cwd ?? process.cwd() };
  return { io, out: () => out, err: () => err };
}
