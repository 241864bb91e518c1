import { InvalidArgumentError, type Command } from 'commander';
import { action, type CliRuntime } from '../action.js';

function positive(label: string) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${label} must be a positive number, got "${value}".`);
    return n;
  };
}

export function registerWatch(program: Command, runtime: CliRuntime): void {
  program
    .command('watch')
    .description('regenerate on local changes; poll the service for floating selectors and sync what changed')
    .option('--interval <seconds>', 'seconds between polls (default: watchInterval from the config)', positive('--interval'))
    .option('--rate-limit <requests>', "the service's per-minute limit; polling spends at most 20% of it (default 1000)", positive('--rate-limit'))
    .action(
      action(runtime, async (ctx, opts: { interval?: number; rateLimit?: number }) => {
        const [{ startWatch }, { connector }, { loadCommandConfig }] = await Promise.all([
          import('../../watch/watch.js'),
          import('../connect.js'),
          import('../load-command-config.js'),
        ]);
        const handle = await startWatch({
          loadConfig: () => loadCommandConfig(ctx),
          connect: (config) => connector(ctx, config)(),
          log: ctx.logger,
          ...(opts.interval ? { intervalSeconds: opts.interval } : {}),
          ...(opts.rateLimit ? { limitPerMinute: opts.rateLimit } : {}),
        });
        await handle.ready;
        ctx.logger.info('Watching for changes (Ctrl-C to stop)…');
        const signal = await new Promise<NodeJS.Signals>((resolve) => {
          process.once('SIGINT', () => resolve('SIGINT'));
          process.once('SIGTERM', () => resolve('SIGTERM'));
        });
        ctx.logger.info(`Stopping (${signal})…`);
        await handle.close();
        return 0;
      }),
    );
}
