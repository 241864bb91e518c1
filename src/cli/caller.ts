import path from 'node:path';
import type { ConfigConflictResolution } from '../config/edit/resolve-conflict.js';
import type { Caller, ProjectOptions } from '../library.js';
import { pluralise } from '../util/pluralise.js';
import type { CommandContext } from './context.js';

/** The project a command runs in: `--config` if given, else searched from the working directory. */
export function projectOf(ctx: CommandContext): ProjectOptions {
  return { cwd: ctx.io.cwd, config: ctx.globals.config, env: ctx.io.env };
}

/**
 * How a command calls the library: a key from the project's .env files is masked like one from the
 * environment, notices and warnings are printed, the client's retries and waits go to --verbose.
 */
export function callerOf(ctx: CommandContext): Caller {
  return {
    onConfig: (config) => ctx.logger.addSecret(config.apiKey),
    onEvent: (event) => {
      if (event.type === 'info') ctx.logger.info(event.message);
      else if (event.type === 'warn') ctx.logger.warn(event.message);
      else if (event.type === 'service') ctx.logger.verbose(`service: ${JSON.stringify(event.event)}`);
    },
  };
}

/** What sync says (on stderr, even with --json: stdout carries the one summary) after resolving a conflicted config. */
export function describeConflictResolution(r: ConfigConflictResolution, cwd: string): string {
  const where = path.relative(cwd, r.configPath) || r.configPath;
  const parts = [
    r.added.length > 0 ? `added ${r.added.join(', ')} from the other branch` : '',
    r.duplicates.length > 0 ? `kept ${r.duplicates.join(', ')} once (on both sides)` : '',
    r.removed.length > 0 ? `removed ${r.removed.join(', ')} (removed on one side)` : '',
  ].filter((part) => part !== '');
  return `Merged the git conflict in ${where} (${pluralise(r.hunks, 'conflict')}): kept both sides' prompt entries${parts.length > 0 ? `; ${parts.join('; ')}` : ''}. Review it and commit it with the merge.`;
}
