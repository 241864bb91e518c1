import { type Command, Option } from 'commander';
import type { Caller } from '../../library.js';
import { action, type CliRuntime } from '../action.js';
import type { CommandContext } from '../context.js';

export function registerDiff(program: Command, runtime: CliRuntime): void {
  program
    .command('diff')
    .argument('[names...]', 'only these prompts')
    .description('show what sync would change, as a line diff of prompt texts')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown']).default('text'))
    .option('--exit-code', 'exit 1 when sync would change something, 0 when nothing (as `git diff --exit-code`)')
    .option(
      '-r, --recursive',
      'diff every app of the workspace (npm/yarn workspaces, pnpm-workspace.yaml) with one client; reports per app',
    )
    .action(
      action(runtime, async (ctx, names: string[], opts: { format: 'text' | 'markdown'; recursive?: boolean; exitCode?: boolean }) => {
        // `--exit-code`: 1 when any app would change (after every app ran and printed), like `git diff --exit-code`.
        let changes = 0;
        const counted = async (run: Promise<number>) => {
          const found = await run;
          changes += found;
          return 0;
        };
        const withChanges = (code: number) => (code === 0 && opts.exitCode && changes > 0 ? 1 : code);
        if (opts.recursive) {
          const { runRecursive, rejectNames } = await import('./run-recursive.js');
          rejectNames(names);
          return withChanges(
            await runRecursive(ctx, 'diff', (appCtx, config, connect) =>
              counted(diffProject(appCtx, [], opts.format, { config, connect })),
            ),
          );
        }
        return withChanges(await counted(diffProject(ctx, names, opts.format)));
      }),
    );
}

/** Prints what sync would change in one project; returns how many prompts would change. */
async function diffProject(
  ctx: CommandContext,
  names: string[],
  format: 'text' | 'markdown',
  app: Pick<Caller, 'config' | 'connect'> = {},
): Promise<number> {
  const [{ callDiff }, { formatDiffText }, { callerOf, projectOf }] = await Promise.all([
    import('../../library.js'),
    import('../../sync/diff-prompts.js'),
    import('../caller.js'),
  ]);
  const { changes: diffs, markdown } = await callDiff({ ...projectOf(ctx), names }, { ...callerOf(ctx), ...app });
  if (ctx.globals.json) {
    ctx.logger.json({ command: 'diff', changes: diffs });
    return diffs.length;
  }
  const { colors } = ctx.logger;
  ctx.logger.result(
    format === 'markdown'
      ? markdown
      : formatDiffText(diffs, (kind, text) =>
          kind === 'add' ? colors.green(text) : kind === 'del' ? colors.red(text) : kind === 'hunk' ? colors.cyan(text) : colors.bold(text),
        ),
  );
  return diffs.length;
}
