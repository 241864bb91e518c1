import type { Command } from 'commander';
import { action, type CliRuntime } from '../action.js';
import { pluralise } from '../../util/pluralise.js';

export function registerCheck(program: Command, runtime: CliRuntime): void {
  program
    .command('check')
    .description('for CI, writes nothing: config vs lockfile, snapshots vs hashes, module vs snapshots; exits 1 on any problem')
    .option('--remote', 'also compare the lockfile with the service')
    .option('--no-typecheck', 'skip type-checking the module with the TypeScript compiler')
    .action(
      action(runtime, async (ctx, opts: { remote?: boolean; typecheck: boolean }) => {
        const [{ check, describeProblem }, { connector }, { loadCommandConfig }] = await Promise.all([
          import('../../sync/check.js'),
          import('../connect.js'),
          import('../load-command-config.js'),
        ]);
        const config = await loadCommandConfig(ctx);
        const result = await check({ config, remote: Boolean(opts.remote), connect: connector(ctx, config), typecheck: opts.typecheck });
        const lines = result.problems.map(describeProblem);
        if (ctx.globals.json) {
          // `problems`: the lines as printed; `details`: the same problems as { code, subject, message, fix }.
          ctx.logger.json({ command: 'check', ok: lines.length === 0, checked: result.checked, problems: lines, details: result.problems });
        } else if (result.problems.length === 0) {
          ctx.logger.success(`${result.checked} prompts checked: lockfile, snapshots and module agree${opts.remote ? ' with the service' : ''}`);
        } else {
          ctx.logger.error(`check found ${pluralise(result.problems.length, 'problem')}:`);
          for (const line of lines) ctx.logger.info(`  - ${line}`);
        }
        return result.problems.length === 0 ? 0 : 1;
      }),
    );
}
