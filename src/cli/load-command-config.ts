import path from 'node:path';
import type { ConfigConflictResolution } from '../config/edit/resolve-conflict.js';
import { loadConfig } from '../config/index.js';
import type { ResolvedConfig } from '../config/types.js';
import { pluralise } from '../util/pluralise.js';
import type { CommandContext } from './context.js';

/**
 * The config for a command: `--config` if given, else searched from the working directory.
 * `resolveConflict` (sync): git conflict markers inside the prompts list are resolved, and said.
 */
export async function loadCommandConfig(ctx: CommandContext, options: { resolveConflict?: boolean } = {}): Promise<ResolvedConfig> {
  const config = await loadConfig({
    cwd: ctx.io.cwd,
    configPath: ctx.globals.config,
    env: ctx.io.env,
    ...(options.resolveConflict
      ? {
          onConflictResolved: (resolution) => ctx.logger.warn(describeConflictResolution(resolution, ctx.io.cwd)),
        }
      : {}),
  });
  // A key from the project's .env files is as secret as one from the environment.
  ctx.logger.addSecret(config.apiKey);
  return config;
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
