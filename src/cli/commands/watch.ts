import { type Command, InvalidArgumentError } from 'commander';
import { firstSignal } from '../../util/first-signal.js';
import { action, type CliRuntime } from '../action.js';

function atLeast(label: string, min: number) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < min) throw new InvalidArgumentError(`${label} must be a number of at least ${min}, got "${value}".`);
    return n;
  };
}

export function registerWatch(program: Command, runtime: CliRuntime): void {
  program
    .command('watch')
    .description('regenerate on local changes; poll the service for floating selectors and sync what changed')
    .option('--interval <seconds>', 'seconds between polls (default: watchInterval from the config)', atLeast('--interval', 0.1))
    .option(
      '--rate-limit <requests>',
      "the service's per-minute limit; polling spends at most 20% of it (default 1000)",
      atLeast('--rate-limit', 1),
    )
    .action(
      action(runtime, async (ctx, opts: { interval?: number; rateLimit?: number }) => {
        // Handlers go in first: a Ctrl-C during the first sync still stops cleanly, with code 0.
        const stop = firstSignal();
        try {
          const [{ watch }, { callerOf, projectOf }] = await Promise.all([import('../../library.js'), import('../caller.js')]);
          const settings = {
            log: ctx.logger,
            ...(opts.interval ? { intervalSeconds: opts.interval } : {}),
            ...(opts.rateLimit ? { limitPerMinute: opts.rateLimit } : {}),
          };
          const handle = await watch(projectOf(ctx), settings, callerOf(ctx));
          const first = await Promise.race([handle.ready.then(() => undefined), stop.signal]);
          if (!first) ctx.logger.info('Watching for changes (Ctrl-C to stop)…');
          const signal = first ?? (await stop.signal);
          ctx.logger.info(`Stopping (${signal})…`);
          await handle.close();
          ctx.logger.info('Stopped.');
          return 0;
        } finally {
          stop.cancel();
        }
      }),
    );
}
