import { Writable } from 'node:stream';
import type { CliIO } from '../../src/cli/context.js';

/** A CliIO that records what the CLI prints, for in-process runs of `runCli`. */
export function captureIO(cwd: string, env: NodeJS.ProcessEnv = {}): CliIO & { out: () => string; err: () => string } {
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
  return { stdout: stdout.stream, stderr: stderr.stream, env, cwd, out: stdout.text, err: stderr.text };
}
