import { AggregatePromptlockError, asFileSystemError, PromptlockError } from '../errors.js';
import type { Logger } from './logger.js';

/** Prints an error the way users see it and returns the exit code for it. */
export function reportError(thrown: unknown, logger: Logger, verbose: boolean): number {
  // A disk error (no space, read-only, no permission) is the machine's, not a bug: name path and cause.
  const error = asFileSystemError(thrown);
  if (error instanceof AggregatePromptlockError) {
    logger.error(error.message);
    for (const inner of error.errors) {
      logger.error(`  ${inner.message}`);
      if (inner.hint) logger.info(`    ${logger.colors.dim(inner.hint)}`);
    }
    return error.exitCode;
  }
  if (error instanceof PromptlockError) {
    logger.error(error.message);
    if (error.hint) logger.info(`  ${logger.colors.dim(error.hint)}`);
    if (verbose && error.cause) logger.verbose(`  cause: ${String((error.cause as Error).stack ?? error.cause)}`);
    return error.exitCode;
  }
  // Anything else is a bug in promptlock: say so, with the stack when asked for.
  const err = error as Error;
  logger.error(`unexpected failure: ${err?.message ?? String(error)}`);
  if (verbose && err?.stack) logger.verbose(err.stack);
  else logger.info('  Run again with --verbose for details, and please report it.');
  return 1;
}

/** The `--json` document of a failed command: what failed, with every gathered error. */
export function jsonFailure(command: string, exitCode: number, thrown: unknown) {
  const error = asFileSystemError(thrown);
  const describe = (e: unknown) => {
    const { message, hint, code, status } = e as { message?: string; hint?: string; code?: string; status?: number };
    return { message: String(message ?? e), ...(hint ? { hint } : {}), ...(code ? { code } : {}), ...(status ? { status } : {}) };
  };
  return {
    command,
    ok: false,
    exitCode,
    error: describe(error),
    ...(error instanceof AggregatePromptlockError ? { errors: error.errors.map(describe) } : {}),
  };
}
