import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import type { Command } from 'commander';
import type { ResolvedConfig } from '../../config/types.js';
import type { GenerateOptions } from '../../sync/generate.js';
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
  const { loadConfig } = await import('../../config/index.js');
  return generateProject(ctx, await loadConfig({ cwd: ctx.io.cwd, configPath: ctx.globals.config, env: ctx.io.env }), flags);
}

async function generateProject(ctx: CommandContext, config: ResolvedConfig, flags: GenerateFlags): Promise<number> {
  // Loaded here rather than at the top so other commands do not pay for them at start-up.
  const [{ generate, generateOptionsFor }, { finishInterruptedRun }, { storeFilesOf }] = await Promise.all([
    import('../../sync/generate.js'),
    import('../../store/finish-interrupted-run.js'),
    import('../../sync/store-files.js'),
  ]);
  // The journal's prompt data only: the module is generated from it just below.
  if (await finishInterruptedRun(storeFilesOf(config), 'generate')) {
    ctx.logger.info('Completed the writes of an interrupted sync first.');
  }
  if (!existsSync(config.lockfilePath)) return generateEmpty(ctx, config.lockfilePath, config.outputPath, config.omit, config.rootDir);
  const result = await generate({ ...generateOptionsFor(config), force: Boolean(flags.force) });
  const shown = relative(ctx.io.cwd, result.outputPath) || result.outputPath;
  for (const name of result.mismatched) {
    ctx.logger.warn(
      `the snapshot of ${name} does not match the lockfile (edited by hand?): the module was built from it as it is. Run \`promptlock sync\` to restore it; \`promptlock check\` fails until then.`,
    );
  }
  if (ctx.globals.json) {
    ctx.logger.json(result);
  } else if (result.written) {
    ctx.logger.success(`Generated ${shown} (${pluralise(result.count, 'prompt')})`);
  } else {
    ctx.logger.success(`${shown} is up to date`);
  }
  return 0;
}

/**
 * Before the first sync there is no lockfile: a fresh clone's `npm install` runs `prepare`, which
 * must not fail. The module is written with no prompts (it type-checks, `prompts` is empty), and
 * the message says how to fill it. Exit 0.
 */
async function generateEmpty(
  ctx: CommandContext,
  lockfilePath: string,
  outputPath: string,
  omit: GenerateOptions['omit'],
  rootDir: string,
): Promise<number> {
  const [{ generateModuleFiles }, { writeIfChanged }] = await Promise.all([
    import('../../codegen/generate-module.js'),
    import('../../store/module-file.js'),
  ]);
  let written = false;
  for (const file of generateModuleFiles([], { outputPath, omit }))
    written = (await writeIfChanged(file.path, file.content, rootDir)) || written;
  const shown = relative(ctx.io.cwd, outputPath) || outputPath;
  const lockfile = relative(ctx.io.cwd, lockfilePath) || lockfilePath;
  if (ctx.globals.json) {
    ctx.logger.json({ outputPath, written, count: 0, mismatched: [], lockfile: 'missing' });
  } else {
    ctx.logger.warn(
      `${lockfile} does not exist yet: ${written ? 'wrote' : 'kept'} ${shown} with no prompts. Run \`promptlock sync\` (or \`promptlock add <name>\`) to lock your prompts, then commit the lockfile and snapshots.`,
    );
  }
  return 0;
}

export function registerGenerate(program: Command, runtime: CliRuntime): void {
  program
    .command('generate')
    .description('build the typed module from the lockfile and snapshots (no network, no API key)')
    .option('--force', 'rebuild even when up to date (never needed: an edited lockfile, snapshot or module is always noticed)')
    .option('-r, --recursive', 'generate in every app of the workspace (npm/yarn workspaces, pnpm-workspace.yaml); reports per app')
    .action(action(runtime, runGenerate));
}
