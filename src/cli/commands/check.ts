import path from 'node:path';
import { type Command, Option } from 'commander';
import type { ResolvedConfig } from '../../config/types.js';
import type { CheckResult } from '../../library.js';
import type { SyncClient } from '../../sync/types.js';
import { pluralise } from '../../util/pluralise.js';
import { action, type CliRuntime } from '../action.js';
import type { CommandContext } from '../context.js';
import { printPlaceholderNotes } from '../placeholder-notes.js';

export function registerCheck(program: Command, runtime: CliRuntime): void {
  program
    .command('check')
    .description('for CI, writes nothing: config vs lockfile, snapshots vs hashes, module vs snapshots; exits 1 on any problem')
    .option('--remote', 'also compare the lockfile with the service')
    .option('--no-typecheck', 'skip type-checking the module with the TypeScript compiler')
    .addOption(
      new Option('--format <format>', 'text, or github: each problem as a workflow annotation on its file and line')
        .choices(['text', 'github'])
        .default('text'),
    )
    .option('-r, --recursive', 'check every app of the workspace (npm/yarn workspaces, pnpm-workspace.yaml); reports per app')
    .action(
      action(runtime, async (ctx, opts: CheckFlags) => {
        if (opts.recursive) {
          const { runRecursive } = await import('./run-recursive.js');
          return runRecursive(ctx, 'check', (appCtx, config, connect) => checkProject(appCtx, config, connect, opts));
        }
        const [{ loadProject }, { callerOf, projectOf }] = await Promise.all([import('../../library.js'), import('../caller.js')]);
        return checkProject(ctx, await loadProject(projectOf(ctx), callerOf(ctx)), undefined, opts);
      }),
    );
}

interface CheckFlags {
  remote?: boolean;
  typecheck: boolean;
  recursive?: boolean;
  format: 'text' | 'github';
}

async function checkProject(
  ctx: CommandContext,
  config: ResolvedConfig,
  connect: (() => Promise<SyncClient>) | undefined,
  opts: CheckFlags,
): Promise<number> {
  const [{ callCheck }, { describeProblem }, { callerOf }] = await Promise.all([
    import('../../library.js'),
    import('../../sync/check.js'),
    import('../caller.js'),
  ]);
  const result = await callCheck({ remote: opts.remote, typecheck: opts.typecheck }, { ...callerOf(ctx), config, connect });
  const lines = result.problems.map(describeProblem);
  if (ctx.globals.json) {
    // `problems`: the lines as printed; `details`: the same problems as { code, subject, message, fix }.
    ctx.logger.json({
      command: 'check',
      ok: lines.length === 0,
      checked: result.checked,
      problems: lines,
      details: result.problems,
      placeholders: result.placeholders,
    });
  } else if (opts.format === 'github') {
    await printForGithub(ctx, config, result);
  } else if (result.problems.length === 0) {
    ctx.logger.success(
      `${pluralise(result.checked, 'prompt')} checked: lockfile, snapshots and module agree${opts.remote ? ' with the service' : ''}`,
    );
    printPlaceholderNotes(ctx, result.placeholders);
  } else {
    ctx.logger.error(`check found ${pluralise(result.problems.length, 'problem')}:`);
    for (const line of lines) ctx.logger.info(`  - ${line}`);
    printPlaceholderNotes(ctx, result.placeholders);
  }
  return result.problems.length === 0 ? 0 : 1;
}

/**
 * `--format github`: one `::error file=…,line=…,title=promptlock::…` workflow command per problem
 * on stdout, where GitHub shows it on the line it concerns; a table of them in the job summary
 * when `GITHUB_STEP_SUMMARY` is set (docs/ci.md).
 */
async function printForGithub(ctx: CommandContext, config: ResolvedConfig, result: CheckResult): Promise<void> {
  const [{ annotation, writeStepSummary }, { locateProblems }, { describeProblem }, { tableCell }] = await Promise.all([
    import('../github.js'),
    import('../problem-location.js'),
    import('../../sync/check.js'),
    import('../../util/markdown-text.js'),
  ]);
  const base = ctx.io.env.GITHUB_WORKSPACE || ctx.io.cwd;
  const shown = (file: string) => path.relative(base, file).split(path.sep).join('/');
  const locations = await locateProblems(result.problems, config);
  const rows = result.problems.map((problem, i) => ({ problem, file: shown(locations[i]!.file), line: locations[i]!.line }));
  for (const { problem, file, line } of rows) {
    const message = ctx.logger.redact(describeProblem(problem));
    ctx.logger.workflowCommand(annotation({ level: 'error', file, ...(line === undefined ? {} : { line }), title: 'promptlock', message }));
  }
  if (result.problems.length === 0)
    ctx.logger.success(`${pluralise(result.checked, 'prompt')} checked: lockfile, snapshots and module agree`);
  else ctx.logger.error(`check found ${pluralise(result.problems.length, 'problem')}`);
  const summaryFile = ctx.io.env.GITHUB_STEP_SUMMARY;
  if (!summaryFile) return;
  const lines = ['### promptlock check', ''];
  if (rows.length === 0) lines.push(`${pluralise(result.checked, 'prompt')} checked: lockfile, snapshots and module agree.`);
  else {
    lines.push(
      `${pluralise(rows.length, 'problem')} in ${pluralise(result.checked, 'prompt')}:`,
      '',
      '| where | problem |',
      '| --- | --- |',
    );
    for (const { problem, file, line } of rows) {
      // Problems quote the service (its error messages): each cell is code (docs/security.md).
      lines.push(
        `| ${tableCell(`${file}${line === undefined ? '' : `:${line}`}`)} | ${tableCell(ctx.logger.redact(describeProblem(problem)))} |`,
      );
    }
  }
  await writeStepSummary(summaryFile, `${lines.join('\n')}\n`);
}
