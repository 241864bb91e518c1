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
 * environment, notices and warnings are printed, the client's retries and waits go to --verbose,
 * and a wait for the service's rate limit is told as it starts (`onWait`: a sync's progress line;
 * else a plain line per long wait, `waitLines`).
 */
export function callerOf(ctx: CommandContext, onWait: (ms: number) => void = waitLines(ctx)): Caller {
  return {
    onConfig: (config) => ctx.logger.addSecret(config.apiKey),
    onEvent: (event) => {
      if (event.type === 'info') ctx.logger.info(event.message);
      else if (event.type === 'warn') ctx.logger.warn(event.message);
      else if (event.type === 'service') {
        ctx.logger.verbose(`service: ${JSON.stringify(event.event)}`);
        if (event.event.type === 'rate-limit-wait') onWait(event.event.ms);
      }
    },
  };
}

/** Waits shorter than this pass without a line: a pacer's small gaps are not news. */
const LONG_WAIT_MS = 1000;
const waitLinesOf = new WeakMap<CommandContext, (ms: number) => void>();

/**
 * One plain line per long wait for the rate limit (docs/service-interface.md, "Rate limits"). Every request the
 * wait holds reports it: a report that ends within the wait already told is the same wait.
 */
export function waitLines(ctx: CommandContext): (ms: number) => void {
  let line = waitLinesOf.get(ctx);
  if (!line) {
    let until = 0;
    line = (ms) => {
      const end = Date.now() + ms;
      if (end <= until + 1000) return;
      until = end;
      if (ms >= LONG_WAIT_MS) ctx.logger.info(`Waiting ${Math.ceil(ms / 1000)} s for the service's rate limit…`);
    };
    waitLinesOf.set(ctx, line);
  }
  return line;
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
