import type { Command } from 'commander';
import { check } from '../../sync/check.js';
import { action, type CliRuntime } from '../action.js';
import { connector } from '../connect.js';
import { loadCommandConfig } from '../load-command-config.js';

export function registerCheck(program: Command, runtime: CliRuntime): void {
  program
    .command('check')
    .description('for CI, writes nothing: config vs lockfile, snapshots vs hashes, module vs snapshots; exits 1 on any problem')
    .option('--remote', 'also compare the lockfile with the service')
    .action(
      action(runtime, async (ctx, opts: { remote?: boolean }) => {
        const config = await loadCommandConfig(ctx);
        const result = await check({ config, remote: Boolean(opts.remote), connect: connector(ctx, config) });
        if (ctx.globals.json) {
          ctx.logger.json({ command: 'check', ok: result.problems.length === 0, checked: result.checked, problems: result.problems });
        } else if (result.problems.length === 0) {
          ctx.logger.success(`${result.checked} prompts checked: lockfile, snapshots and module agree${opts.remote ? ' with the service' : ''}`);
        } else {
          ctx.logger.error(`check found ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}:`);
          for (const problem of result.problems) ctx.logger.info(`  - ${problem}`);
        }
        return result.problems.length === 0 ? 0 : 1;
      }),
    );
}
