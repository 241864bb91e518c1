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
        const [{ check }, { connector }, { loadCommandConfig }] = await Promise.all([
          import('../../sync/check.js'),
          import('../connect.js'),
          import('../load-command-config.js'),
        ]);
        const config = await loadCommandConfig(ctx);
        const result = await check({ config, remote: Boolean(opts.remote), connect: connector(ctx, config), typecheck: opts.typecheck });
        if (ctx.globals.json) {
          ctx.logger.json({ command: 'check', ok: result.problems.length === 0, checked: result.checked, problems: result.problems });
        } else if (result.problems.length === 0) {
          ctx.logger.success(`${result.checked} prompts checked: lockfile, snapshots and module agree${opts.remote ? ' with the service' : ''}`);
        } else {
          ctx.logger.error(`check found ${pluralise(result.problems.length, 'problem')}:`);
          for (const problem of result.problems) ctx.logger.info(`  - ${problem}`);
        }
        return result.problems.length === 0 ? 0 : 1;
      }),
    );
}
