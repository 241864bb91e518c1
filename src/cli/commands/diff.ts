import { Option, type Command } from 'commander';
import { diffNameFilter } from '../../library.js';
import { action, type CliRuntime } from '../action.js';

export function registerDiff(program: Command, runtime: CliRuntime): void {
  program
    .command('diff')
    .argument('[names...]', 'only these prompts')
    .description('show what sync would change, as a line diff of prompt texts')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown']).default('text'))
    .action(
      action(runtime, async (ctx, names: string[], opts: { format: 'text' | 'markdown' }) => {
        const [{ diffPrompts, formatDiffMarkdown, formatDiffText }, { sync }, { connector }, { loadCommandConfig }] = await Promise.all([
          import('../../sync/diff-prompts.js'),
          import('../../sync/sync.js'),
          import('../connect.js'),
          import('../load-command-config.js'),
        ]);
        const config = await loadCommandConfig(ctx);
        const result = await sync({ config, connect: connector(ctx, config), dryRun: true, ...(names.length ? { names } : {}) });
        const diffs = diffPrompts(result.before, result.after, diffNameFilter(names));
        if (ctx.globals.json) {
          ctx.logger.json({ command: 'diff', changes: diffs });
          return 0;
        }
        const { colors } = ctx.logger;
        ctx.logger.result(
          opts.format === 'markdown'
            ? formatDiffMarkdown(diffs)
            : formatDiffText(diffs, (kind, text) =>
                kind === 'add' ? colors.green(text) : kind === 'del' ? colors.red(text) : kind === 'hunk' ? colors.cyan(text) : colors.bold(text),
              ),
        );
        return 0;
      }),
    );
}
