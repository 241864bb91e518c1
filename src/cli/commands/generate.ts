import type { Command } from 'commander';
import { relative } from 'node:path';
import { action, type CliRuntime } from '../action.js';
import type { CommandContext } from '../context.js';

interface GenerateFlags {
  force?: boolean;
}

/** `promptlock generate`: the module from lockfile + snapshots. No network, no key. */
async function runGenerate(ctx: CommandContext, flags: GenerateFlags): Promise<number> {
  // Loaded here rather than at the top so other commands do not pay for them at start-up.
  const [{ loadConfig }, { generate }, { finishInterruptedRun }] = await Promise.all([
    import('../../config/index.js'),
    import('../../codegen/generate.js'),
    import('../../store/finish-interrupted-run.js'),
  ]);
  const config = await loadConfig({ cwd: ctx.io.cwd, configPath: ctx.globals.config, env: ctx.io.env });
  if (await finishInterruptedRun(config.rootDir, 'generate')) {
    ctx.logger.info('Completed the writes of an interrupted sync first.');
  }
  const result = await generate({
    lockfilePath: config.lockfilePath,
    snapshotsDir: config.snapshotsDir,
    outputPath: config.outputPath,
    rootDir: config.rootDir,
    force: Boolean(flags.force),
  });
  const shown = relative(ctx.io.cwd, result.outputPath) || result.outputPath;
  for (const name of result.mismatched) {
    ctx.logger.warn(`the snapshot of ${name} does not match the lockfile (edited by hand?): the module was built from it as it is. Run \`promptlock sync\` to restore it; \`promptlock check\` fails until then.`);
  }
  if (ctx.globals.json) {
    ctx.logger.json(result);
  } else if (result.written) {
    ctx.logger.success(`Generated ${shown} (${result.count} ${result.count === 1 ? 'prompt' : 'prompts'})`);
  } else {
    ctx.logger.success(`${shown} is up to date`);
  }
  return 0;
}

export function registerGenerate(program: Command, runtime: CliRuntime): void {
  program
    .command('generate')
    .description('build the typed module from the lockfile and snapshots (no network, no API key)')
    .option('--force', 'rebuild even when the module is up to date')
    .action(action(runtime, runGenerate));
}
