import pc from 'picocolors';
import { redact } from '../secrets.js';

/**
 * Human output goes to stderr, results (the `--json` summary, `diff` output) to stdout. Every line
 * passes through `redact`, so the API key cannot be printed even by accident.
 */
export interface Logger {
  info(message: string): void;
  success(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  verbose(message: string): void;
  /** Writes to stdout even with --quiet: the command's result. */
  result(text: string): void;
  /** Writes one JSON document to stdout. */
  json(value: unknown): void;
  readonly colors: ReturnType<typeof pc.createColors>;
  /** Removes secrets from a string destined for the terminal. */
  redact(text: string): string;
}

export interface LoggerOptions {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  quiet: boolean;
  verbose: boolean;
  color: boolean;
  secrets: readonly (string | undefined)[];
}

export function createLogger(options: LoggerOptions): Logger {
  const colors = pc.createColors(options.color);
  const clean = (text: string) => redact(text, options.secrets);
  const line = (stream: NodeJS.WritableStream, text: string) => stream.write(`${clean(text)}\n`);
  return {
    colors,
    redact: clean,
    info: (message) => {
      if (!options.quiet) line(options.stderr, message);
    },
    success: (message) => {
      if (!options.quiet) line(options.stderr, `${colors.green('✔')} ${message}`);
    },
    warn: (message) => line(options.stderr, `${colors.yellow('warning:')} ${message}`),
    error: (message) => line(options.stderr, `${colors.red('error:')} ${message}`),
    verbose: (message) => {
      if (options.verbose && !options.quiet) line(options.stderr, colors.dim(message));
    },
    result: (text) => {
      options.stdout.write(clean(text.endsWith('\n') ? text : `${text}\n`));
    },
    json: (value) => {
      options.stdout.write(`${clean(JSON.stringify(value, null, 2))}\n`);
    },
  };
}
