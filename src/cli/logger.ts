import path from 'node:path';
import pc from 'picocolors';
import { redact } from '../secrets.js';
import { terminalJson, terminalText } from '../terminal-text.js';

/**
 * Human output goes to stderr, results (the `--json` summary, `diff` output) to stdout. Every line
 * passes through `redact`, so the API key cannot be printed even by accident, and `terminalText`,
 * so text from the service cannot drive the terminal (docs/security.md): only the CLI's own
 * colours stay, and only when colours are on. Text inside `colors.*` loses every sequence, and
 * warnings and errors never carry colours in their message.
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
  /**
   * Writes one of the CLI's own workflow commands (src/cli/github.ts built it, its fields escaped)
   * to stdout: the one line whose `::` is kept; every other line loses it (docs/security.md).
   */
  workflowCommand(line: string): void;
  readonly colors: ReturnType<typeof pc.createColors>;
  /** Removes secrets and control characters from a string destined for the terminal. */
  redact(text: string): string;
  /** Adds a secret found after start-up (a key read from the project's .env files). */
  addSecret(secret: string | undefined): void;
}

export interface LoggerOptions {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  quiet: boolean;
  verbose: boolean;
  color: boolean;
  secrets: readonly (string | undefined)[];
  /**
   * The folder the command runs in: a path inside it is shown relative in every message line
   * (stderr), whichever layer wrote it, so a run in this process says what a spawned one says.
   * Results on stdout (a diff's prompt text, `--json`) are left as they are.
   */
  cwd?: string | undefined;
}

/**
 * Drops `<cwd>/` before the paths inside the working folder. A quoted path is data, shown as it
 * was written (a journal that names an absolute path is refused for it); the root folder itself
 * is never a prefix to drop.
 */
function relativeTo(cwd: string | undefined): (text: string) => string {
  if (!cwd || path.parse(cwd).root === cwd) return (text) => text;
  const prefix = `${cwd}${path.sep}`;
  const pattern = new RegExp(`(?<!["'])${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'g');
  return (text) => (text.includes(prefix) ? text.replace(pattern, '') : text);
}

export function createLogger(options: LoggerOptions): Logger {
  const colors = plainInside(pc.createColors(options.color));
  const secrets = [...options.secrets];
  const relative = relativeTo(options.cwd);
  const plain = (text: string) => terminalText(redact(text, secrets));
  const clean = (text: string) => {
    const out = terminalText(redact(text, secrets), { keepColors: options.color });
    // A colour opened by the text itself ends with its line.
    return options.color && out.includes('\x1b[') ? `${out}\x1b[0m` : out;
  };
  const line = (stream: NodeJS.WritableStream, text: string) => stream.write(`${clean(relative(text))}\n`);
  return {
    colors,
    redact: clean,
    addSecret: (secret) => {
      if (secret) secrets.push(secret);
    },
    info: (message) => {
      if (!options.quiet) line(options.stderr, message);
    },
    success: (message) => {
      if (!options.quiet) line(options.stderr, `${colors.green('✔')} ${message}`);
    },
    warn: (message) => line(options.stderr, `${colors.yellow('warning:')} ${plain(message)}`),
    error: (message) => line(options.stderr, `${colors.red('error:')} ${plain(message)}`),
    verbose: (message) => {
      if (options.verbose && !options.quiet) line(options.stderr, colors.dim(message));
    },
    result: (text) => {
      options.stdout.write(`${clean(text.endsWith('\n') ? text.slice(0, -1) : text)}\n`);
    },
    workflowCommand: (text) => {
      options.stdout.write(`${terminalText(redact(text, secrets), { workflowCommand: true })}\n`);
    },
    json: (value) => {
      options.stdout.write(`${terminalJson(redact(JSON.stringify(value, null, 2), secrets))}\n`);
    },
  };
}

type Colors = ReturnType<typeof pc.createColors>;

/** The colour functions, each stripping every sequence from the text it colours first. */
function plainInside(colors: Colors): Colors {
  const wrapped: Record<string, unknown> = { ...colors };
  for (const [name, value] of Object.entries(colors)) {
    if (typeof value === 'function') wrapped[name] = (input: unknown) => (value as (s: string) => string)(terminalText(String(input)));
  }
  return wrapped as unknown as Colors;
}
