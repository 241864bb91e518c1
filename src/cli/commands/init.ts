import { basename, join, relative } from 'node:path';
import { type Command, Option } from 'commander';
import { ConfigError } from '../../errors.js';
import { CI_PROVIDERS, type CiProvider, type CiWorkflowResult } from '../../init/ci-workflow.js';
import type { InitResult } from '../../init/index.js';
import { action, type CliRuntime } from '../action.js';
import type { CommandContext } from '../context.js';

interface InitFlags {
  force?: boolean;
  ci?: CiProvider;
  packageJson: boolean;
  format: 'ts' | 'json';
}

/** What to do after init, in order. */
function nextSteps(config: string, result: InitResult): string[] {
  const steps: string[] = [];
  if (result.commonJs) {
    steps.push(
      'Make the app an ES module package: npm pkg set type=module. The generated module is an ES module, and TypeScript (module nodenext, as tsc --init writes it) compiles ES imports only there; import it with its extension: ./generated/prompts.js',
    );
  }
  steps.push(
    'Give promptlock a service: PROMPTLOCK_API_KEY=… in .env.local (git ignores it) or the environment, from the service dashboard; or, offline and without an account, run npx promptlock serve --dir <folder of prompts> and put the two lines it prints in .env.local',
    config.endsWith('.json')
      ? `Name the prompts to lock in ${config} (its empty "prompts": [] locks every prompt the service lists), or run: npx promptlock add @<workspace>/<prompt>`
      : `Name the prompts to lock in ${config}, or run: npx promptlock add @<workspace>/<prompt>`,
    'Run: npx promptlock sync',
    `Commit ${config}, prompts.lock.json, the prompts/ folder and the generated module.`,
  );
  return steps;
}

/** What each script does, in words: the `prepare` command is too long to read in a line. */
const SCRIPT_PURPOSE: Readonly<Record<string, string>> = {
  prepare: 'runs promptlock generate on every install; skipped by a production install, which has no promptlock',
  'prompts:sync': 'promptlock sync',
};

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
    logger.info(`  ("prepare" ${SCRIPT_PURPOSE.prepare}; if you already have one, append " && (…)" with this command to it)`);
    return;
  }
  const where = relative(ctx.io.cwd, result.packageJson!.path) || 'package.json';
  for (const script of result.packageJson!.scripts) {
    const purpose = SCRIPT_PURPOSE[script.name] ?? script.value;
    if (script.action === 'added') logger.success(`Added script "${script.name}" to ${where}: ${purpose}`);
    else if (script.action === 'chained') logger.success(`Chained promptlock into your "${script.name}" script in ${where}: it ${purpose}`);
    else if (script.action === 'present') logger.info(`Script "${script.name}" in ${where} already runs promptlock`);
    else logger.warn(`Kept your script "${script.name}": ${JSON.stringify(script.value)} in ${where}; run promptlock sync to sync prompts`);
  }
}

const GITIGNORE_DONE = { created: 'Wrote .gitignore ignoring .env.local', added: 'Added .env.local to .gitignore', present: undefined };

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
    ci = await writeCiWorkflow({
      dir: ctx.io.cwd,
      provider: flags.ci,
      force: Boolean(flags.force),
      files: await promptlockFiles(ctx, hasConfig),
    });
    // A project that has its config gets only the CI file; a new one gets both.
    if (hasConfig) return printCi(ctx, ci, flags.ci);
  }
  const { initProject } = await import('../../init/index.js');
  const result = await initProject({ dir: ctx.io.cwd, packageJson: flags.packageJson, force: Boolean(flags.force), format: flags.format });
  const steps = nextSteps(basename(result.configPath), result);
  if (ctx.globals.json) {
    ctx.logger.json({
      config: result.configPath,
      overwritten: result.overwritten,
      packageJson: result.packageJson ?? null,
      scriptsToAdd: result.scriptsToAdd ?? null,
      gitignore: result.gitignore,
      commonJs: result.commonJs,
      nextSteps: steps,
      ...(ci && flags.ci ? { ci: ciSummary(ctx, ci, flags.ci) } : {}),
    });
    return 0;
  }
  const { logger } = ctx;
  logger.success(`${result.overwritten ? 'Replaced' : 'Wrote'} ${relative(ctx.io.cwd, result.configPath)}`);
  printScripts(ctx, result);
  const ignored = GITIGNORE_DONE[result.gitignore.action];
  if (ignored) logger.success(ignored);
  logger.info('');
  logger.info('Next steps:');
  for (const [index, step] of steps.entries()) logger.info(`  ${index + 1}. ${step}`);
  return ci && flags.ci ? printCi(ctx, ci, flags.ci) : 0;
}

/**
 * The files the update job commits (lockfile, snapshots folder, module): from the project's config,
 * or the starter config's defaults when init writes it now.
 */
async function promptlockFiles(ctx: CommandContext, hasConfig: boolean): Promise<string[]> {
  const [{ storeFilesOf }, { loadProject }, { projectOf, callerOf }, { parseUserConfig }] = await Promise.all([
    import('../../sync/store-files.js'),
    import('../../library.js'),
    import('../caller.js'),
    import('../../config/parse-user-config.js'),
  ]);
  let config: Parameters<typeof storeFilesOf>[0];
  if (hasConfig) config = await loadProject(projectOf(ctx), callerOf(ctx));
  else {
    const defaults = parseUserConfig({}, 'the starter config');
    const rootDir = ctx.io.cwd;
    config = {
      rootDir,
      snapshotsDir: join(rootDir, defaults.snapshots),
      lockfilePath: join(rootDir, defaults.lockfile),
      outputPath: join(rootDir, defaults.output),
    };
  }
  const files = storeFilesOf(config);
  return [files.lockfilePath, files.snapshotsDir, ...files.moduleFiles];
}

const ciSummary = (ctx: CommandContext, ci: CiWorkflowResult, provider: string) => ({
  provider,
  file: relative(ctx.io.cwd, ci.path),
  overwritten: ci.overwritten,
  packageManager: ci.packageManager.name,
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
    .description('write a starter prompts.config.ts, add the scripts a project needs to package.json and .env.local to .gitignore')
    .option('--force', 'replace an existing prompts.config.ts (prompts.config.json with --format json) with the starter config')
    .addOption(
      new Option('--format <format>', 'ts, or json: a prompts.config.json that references promptlock/schema.json')
        .choices(['ts', 'json'])
        .default('ts'),
    )
    .addOption(
      new Option('--ci <provider>', 'also write a CI workflow that checks pull requests and opens prompt-update pull requests').choices(
        Object.keys(CI_PROVIDERS),
      ),
    )
    .option('--no-package-json', 'do not edit package.json; print the scripts to add instead')
    .action(action(runtime, (ctx, flags: InitFlags) => runInit(ctx, flags)));
}
