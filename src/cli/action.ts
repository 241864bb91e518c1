import type { Command } from 'commander';
import { type CliIO, type CommandContext, commandContext } from './context.js';
import { jsonFailure, reportError } from './format-error.js';

/** Shared state of one `runCli` call: where to write, and the exit code the action settled on. */
export interface CliRuntime {
  io: CliIO;
  exitCode: number;
}

/**
 * Wraps a command handler for commander: builds the context from the parsed flags, runs the
 * handler, and turns a thrown error into a printed message and an exit code. Handlers return an
 * exit code (or nothing for 0).
 */
export function action<Args extends unknown[]>(
  runtime: CliRuntime,
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing (Promise<void>) means exit 0.
  handler: (ctx: CommandContext, ...args: Args) => Promise<number | void>,
): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const ctx = commandContext(runtime.io, command);
    try {
      runtime.exitCode = (await handler(ctx, ...(args.slice(0, -1) as Args))) ?? 0;
    } catch (error) {
      runtime.exitCode = reportError(error, ctx.logger, ctx.globals.verbose);
      if (ctx.globals.json) ctx.logger.json(jsonFailure(command.name(), runtime.exitCode, error));
    }
  };
}
