import type { Command } from 'commander';
import type { ResolvedConfig } from '../../config/types.js';
import type { SyncClient } from '../../sync/types.js';
import { pluralise } from '../../util/pluralise.js';
import { action, type CliRuntime } from '../action.js';
import type { CommandContext } from '../context.js';

export function registerCheck(program: Command, runtime: CliRuntime): void {
  program
    .command('check')
    .description('for CI, writes nothing: config vs lockfile, snapshots vs hashes, module vs snapshots; exits 1 on any problem')
    .option('--remote', 'also compare the lockfile with the service')
    .option('--no-typecheck', 'skip type-checking the module with the TypeScript compiler')
    .option('-r, --recursive', 'check every app of the workspace (npm/yarn workspaces, pnpm-workspace.yaml); reports per app')
    .action(
      action(runtime, async (ctx, opts: CheckFlags) => {
        if (opts.recursive) {
          const { runRecursive } = await import('./run-recursive.js');
          return runRecursive(ctx, 'check', (appCtx, config, connect) => checkProject(appCtx, config, connect, opts));
        }
        const [{ connector }, { loadCommandConfig }] = await Promise.all([import('../connect.js'), import('../load-command-config.js')]);
        const config = await loadCommandConfig(ctx);
        return checkProject(ctx, config, connector(ctx, config), opts);
      }),
    );
}

interface CheckFlags {
  remote?: boolean;
  typecheck: boolean;
  recursive?: boolean;
}

async function checkProject(
  ctx: CommandContext,
  config: ResolvedConfig,
  connect: () => Promise<SyncClient>,
  opts: CheckFlags,
): Promise<number> {
  const { check, describeProblem } = await import('../../sync/check.js');
  const result = await check({ config, remote: Boolean(opts.remote), connect, typecheck: opts.typecheck });
  const lines = result.problems.map(describeProblem);
  if (ctx.globals.json) {
    // `problems`: the lines as printed; `details`: the same problems as { code, subject, message, fix }.
    ctx.logger.json({ command: 'check', ok: lines.length === 0, checked: result.checked, problems: lines, details: result.problems });
  } else if (result.problems.length === 0) {
    ctx.logger.success(
      `${pluralise(result.checked, 'prompt')} checked: lockfile, snapshots and module agree${opts.remote ? ' with the service' : ''}`,
    );
  } else {
    ctx.logger.error(`check found ${pluralise(result.problems.length, 'problem')}:`);
    for (const line of lines) ctx.logger.info(`  - ${line}`);
  }
  return result.problems.length === 0 ? 0 : 1;
}
