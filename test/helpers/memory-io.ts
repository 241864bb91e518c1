import { Writable } from 'node:stream';
import type { CliIO } from '../../src/cli/context.js';

/** A CliIO for in-process runs of `runCli` that records what it prints on each stream. */
export function memoryIO(options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): CliIO & { out: () => string; err: () => string } {
  const sink = () => {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        chunks.push(chunk.toString());
        done();
      },
    });
    return { stream, text: () => chunks.join('') };
  };
  const stdout = sink();
  const stderr = sink();
  return {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    out: stdout.text,
    err: stderr.text,
  };
}
