import { basename, relative } from 'node:path';
import { type Command, Option } from 'commander';
import { ConfigError } from '../../errors.js';
import type { CiWorkflowResult } from '../../init/ci-workflow.js';
import type { InitResult } from '../../init/index.js';
import { action, type CliRuntime } from '../action.js';
import type { CommandContext } from '../context.js';

interface InitFlags {
  force?: boolean;
  ci?: 'github' | 'gitlab';
  packageJson: boolean;
  format: 'ts' | 'json';
}

const nextSteps = (config: string) => [
  'Set your API key outside the config: PROMPTLOCK_API_KEY=… in .env.local (keep it out of git) or the environment',
  `Name the prompts to lock in ${config}, or run: npx promptlock add @<workspace>/<prompt>`,
  'Run: npx promptlock sync',
  `Commit ${config}, prompts.lock.json and the prompts/ folder.`,
];

function printScripts(ctx: CommandContext, result: InitResult): void {
  const { logger } = ctx;
  if (result.scriptsToAdd) {
    logger.info('Add these scripts to your package.json:');
    logger.info('  "scripts": {');
    const entries = Object.entries(result.scriptsToAdd);
    entries.forEach(([name, value], index) => {
      logger.info(`    ${JSON.stringify(name)}: ${JSON.stringify(value)}${index < entries.length - 1 ? ',' : ''}`);
    });
    logger.info('  }');
    logger.info(`  (if you already have a prepare script, append " && (${result.scriptsToAdd.prepare})" to it)`);
    return;
  }
  const where = relative(ctx.io.cwd, result.packageJson!.path) || 'package.json';
  for (const script of result.packageJson!.scripts) {
    const shown = `"${script.name}": "${script.value}"`;
    if (script.action === 'added') logger.success(`Added script ${shown} to ${where}`);
    else if (script.action === 'chained') logger.success(`Chained promptlock into the existing script ${shown}`);
    else if (script.action === 'present') logger.info(`Script "${script.name}" in ${where} already runs promptlock`);
    else logger.warn(`Kept your script ${shown} in ${where}; run promptlock sync to sync prompts`);
  }
}

async function runInit(ctx: CommandContext, flags: InitFlags): Promise<number> {
  if (ctx.globals.config !== undefined) {
    throw new ConfigError('promptlock init does not take --config: it writes prompts.config.ts in the current folder.', {
      hint: 'Run it from the folder where the config should live.',
    });
  }
  let ci: CiWorkflowResult | undefined;
  if (flags.ci) {
    const [{ existingConfigFiles }, { writeCiWorkflow }] = await Promise.all([
      import('../../init/config-files.js'),
      import('../../init/ci-workflow.js'),
    ]);
    const hasConfig = (await existingConfigFiles(ctx.io.cwd)).length > 0;
    // Written first: it is what a second run refuses, and a refused init writes nothing.
    ci = await writeCiWorkflow({ dir: ctx.io.cwd, provider: flags.ci, force: Boolean(flags.force) });
    // A project that has its config gets only the CI file; a new one gets both.
    if (hasConfig) return printCi(ctx, ci, flags.ci);
  }
  const { initProject } = await import('../../init/index.js');
  const result = await initProject({ dir: ctx.io.cwd, packageJson: flags.packageJson, force: Boolean(flags.force), format: flags.format });
  const steps = nextSteps(basename(result.configPath));
  if (ctx.globals.json) {
    ctx.logger.json({
      config: result.configPath,
      overwritten: result.overwritten,
      packageJson: result.packageJson ?? null,
      scriptsToAdd: result.scriptsToAdd ?? null,
      nextSteps: steps,
      ...(ci && flags.ci ? { ci: ciSummary(ctx, ci, flags.ci) } : {}),
    });
    return 0;
  }
  const { logger } = ctx;
  logger.success(`${result.overwritten ? 'Replaced' : 'Wrote'} ${relative(ctx.io.cwd, result.configPath)}`);
  printScripts(ctx, result);
  logger.info('');
  logger.info('Next steps:');
  for (const [index, step] of steps.entries()) logger.info(`  ${index + 1}. ${step}`);
  return ci && flags.ci ? printCi(ctx, ci, flags.ci) : 0;
}

const ciSummary = (ctx: CommandContext, ci: CiWorkflowResult, provider: string) => ({
  provider,
  file: relative(ctx.io.cwd, ci.path),
  overwritten: ci.overwritten,
  nextSteps: ci.steps,
});

/** What `init --ci` wrote and what is left to set up. */
function printCi(ctx: CommandContext, ci: CiWorkflowResult, provider: string): number {
  if (ctx.globals.json) {
    ctx.logger.json({ ci: ciSummary(ctx, ci, provider) });
    return 0;
  }
  ctx.logger.success(`${ci.overwritten ? 'Replaced' : 'Wrote'} ${relative(ctx.io.cwd, ci.path)}`);
  ctx.logger.info('To finish the CI set-up:');
  for (const [index, step] of ci.steps.entries()) ctx.logger.info(`  ${index + 1}. ${step}`);
  return 0;
}

export function registerInit(program: Command, runtime: CliRuntime): void {
  program
    .command('init')
    .description('write a starter prompts.config.ts and add the scripts a project needs to package.json')
    .option('--force', 'replace an existing prompts.config.ts (prompts.config.json with --format json) with the starter config')
    .addOption(
      new Option('--format <format>', 'ts, or json: a prompts.config.json that references promptlock/schema.json')
        .choices(['ts', 'json'])
        .default('ts'),
    )
    .addOption(
      new Option('--ci <provider>', 'also write a CI workflow that checks pull requests and opens prompt-update pull requests').choices([
        'github',
        'gitlab',
      ]),
    )
    .option('--no-package-json', 'do not edit package.json; print the scripts to add instead')
    .action(action(runtime, (ctx, flags: InitFlags) => runInit(ctx, flags)));
}
