import type { Command } from 'commander';
import { apiKeyFromEnv } from '../secrets.js';
import { createLogger, type Logger } from './logger.js';

/** Where the CLI reads and writes; tests pass their own. */
export interface CliIO {
  /** Read only by `mcp` (its protocol); the process's stdin when absent. */
  stdin?: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** Flags every command takes (docs/cli.md). */
interface GlobalOptions {
  config?: string;
  json: boolean;
  quiet: boolean;
  verbose: boolean;
}

export interface CommandContext {
  io: CliIO;
  globals: GlobalOptions;
  logger: Logger;
  /** True when a live progress display is appropriate (TTY, not CI, not --json/--quiet). */
  interactive: boolean;
}

export function commandContext(io: CliIO, command: Command): CommandContext {
  const all = command.optsWithGlobals() as Partial<GlobalOptions>;
  const globals: GlobalOptions = {
    config: all.config,
    json: Boolean(all.json),
    quiet: Boolean(all.quiet),
    verbose: Boolean(all.verbose),
  };
  const ci = Boolean(io.env.CI) && io.env.CI !== 'false' && io.env.CI !== '0';
  const interactive = Boolean(io.stderr.isTTY) && !ci && !globals.json && !globals.quiet;
  const logger = createLogger({
    stdout: io.stdout,
    stderr: io.stderr,
    quiet: globals.quiet || globals.json,
    verbose: globals.verbose,
    color: Boolean(io.stderr.isTTY) && !('NO_COLOR' in io.env && io.env.NO_COLOR !== '') && !ci,
    secrets: [apiKeyFromEnv(io.env), io.env.PROMPTLOCK_API_KEY, io.env.BAYT_API_KEY],
    cwd: io.cwd,
  });
  return { io, globals, logger, interactive };
}
