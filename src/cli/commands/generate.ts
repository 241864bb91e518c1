import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import type { Command } from 'commander';
import type { ResolvedConfig } from '../../config/types.js';
import { pluralise } from '../../util/pluralise.js';
import { action, type CliRuntime } from '../action.js';
import type { CommandContext } from '../context.js';

interface GenerateFlags {
  force?: boolean;
  recursive?: boolean;
}

/** `promptlock generate`: the module from lockfile + snapshots. No network, no key. */
async function runGenerate(ctx: CommandContext, flags: GenerateFlags): Promise<number> {
  if (flags.recursive) {
    const { runRecursive } = await import('./run-recursive.js');
    return runRecursive(ctx, 'generate', (appCtx, config) => generateProject(appCtx, config, flags));
  }
  const [{ loadProject }, { callerOf, projectOf }] = await Promise.all([import('../../library.js'), import('../caller.js')]);
  return generateProject(ctx, await loadProject(projectOf(ctx), callerOf(ctx)), flags);
}

async function generateProject(ctx: CommandContext, config: ResolvedConfig, flags: GenerateFlags): Promise<number> {
  const [{ callGenerate }, { callerOf }] = await Promise.all([import('../../library.js'), import('../caller.js')]);
  const result = await callGenerate({ force: flags.force }, { ...callerOf(ctx), config, emptyWithoutLockfile: true });
  const shown = relative(ctx.io.cwd, result.outputPath) || result.outputPath;
  if (!existsSync(config.lockfilePath)) {
    // Before the first sync there is no lockfile: a fresh clone's `npm install` runs `prepare`,
    // which must not fail. The module has no prompts; the message says how to fill it. Exit 0.
    const lockfile = relative(ctx.io.cwd, config.lockfilePath) || config.lockfilePath;
    if (ctx.globals.json) ctx.logger.json({ ...result, lockfile: 'missing' });
    else {
      ctx.logger.warn(
        `${lockfile} does not exist yet: ${result.written ? 'wrote' : 'kept'} ${shown} with no prompts. Run \`promptlock sync\` (or \`promptlock add <name>\`) to lock your prompts, then commit the lockfile and snapshots.`,
      );
    }
  } else if (ctx.globals.json) {
    ctx.logger.json(result);
  } else if (result.written) {
    ctx.logger.success(`Generated ${shown} (${pluralise(result.count, 'prompt')})`);
  } else {
    ctx.logger.success(`${shown} is up to date`);
  }
  return 0;
}

export function registerGenerate(program: Command, runtime: CliRuntime): void {
  program
    .command('generate')
    .description('build the typed module from the lockfile and snapshots (no network, no API key)')
    .option('--force', 'accepted and changes nothing: generate always builds the module and writes it when it differs')
    .option('-r, --recursive', 'generate in every app of the workspace (npm/yarn workspaces, pnpm-workspace.yaml); reports per app')
    .action(action(runtime, runGenerate));
}
