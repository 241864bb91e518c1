import type { SyncEvent } from '../sync/types.js';
import { terminalText } from '../terminal-text.js';
import { pluralise } from '../util/pluralise.js';
import { waitLines } from './caller.js';
import type { CommandContext } from './context.js';

export interface Progress {
  onEvent(event: SyncEvent): void;
  /** The client waits `ms` for the service's rate limit (told by every request it holds). */
  onWait(ms: number): void;
  stop(): void;
}

/**
 * Progress of a sync: a live bar on a terminal, plain lines otherwise (CI, pipes), nothing with
 * --quiet or --json. Returns the event handlers and a `stop` that clears the bar.
 */
export async function createProgress(ctx: CommandContext, verb = 'Fetching'): Promise<Progress> {
  if (ctx.globals.quiet || ctx.globals.json) return { onEvent: () => {}, onWait: () => {}, stop: () => {} };
  if (ctx.interactive) {
    const { default: cliProgress } = await import('cli-progress');
    const bar = new cliProgress.SingleBar(
      {
        stream: ctx.io.stderr as NodeJS.WritableStream & { isTTY: boolean } as never,
        format: `${verb} {bar} {value}/{total} {name}{wait}`,
        hideCursor: true,
        clearOnComplete: true,
        barsize: 24,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    // A wait for the rate limit: the line counts its seconds down (docs/service-interface.md, "Rate limits").
    let waitUntil = 0;
    let ticker: NodeJS.Timeout | undefined;
    const lines = waitLines(ctx);
    const tick = () => {
      const left = Math.ceil((waitUntil - Date.now()) / 1000);
      if (left > 0) bar.update({ wait: ` · waiting for the service's rate limit, ${left} s left` });
      else {
        bar.update({ wait: '' });
        clearInterval(ticker);
        ticker = undefined;
      }
    };
    return {
      onEvent: (event) => {
        if (event.type === 'phase' && event.phase === 'list') ctx.logger.info('Listing prompts…');
        // The total grows while the list's pages arrive (prompts are fetched meanwhile): the bar follows it.
        const total = event.type === 'prompt' || event.phase === 'fetch' ? event.total : undefined;
        if (total) {
          if (!started) bar.start(total, 0, { name: '', wait: '' });
          else if (total !== bar.getTotal()) bar.setTotal(total);
          started = true;
        }
        if (event.type === 'prompt' && started) bar.update(event.done, { name: terminalText(event.name) });
      },
      onWait: (ms) => {
        // Before the bar shows (a wait while listing), a plain line tells it.
        if (!started) return lines(ms);
        waitUntil = Math.max(waitUntil, Date.now() + ms);
        tick();
        ticker ??= setInterval(tick, 1000);
      },
      stop: () => {
        clearInterval(ticker);
        ticker = undefined;
        if (started) bar.stop();
        started = false;
      },
    };
  }
  // Plain lines: one at each tenth, so a log of 10,000 prompts stays short; counted once the total
  // is known (a listing's last page), never per prompt before it.
  let step: number | undefined;
  return {
    onWait: waitLines(ctx),
    onEvent: (event) => {
      if (event.type === 'phase' && event.phase === 'list') ctx.logger.info('Listing prompts…');
      if (event.type === 'phase' && event.phase === 'fetch' && event.total) {
        step = Math.max(1, Math.ceil(event.total / 10));
        ctx.logger.info(`${verb} ${pluralise(event.total, 'prompt')}…`);
      }
      if (event.type === 'prompt') {
        ctx.logger.verbose(`  ${event.fetched ? 'fetched' : 'kept'} ${event.name}`);
        if (step !== undefined && !ctx.globals.verbose && (event.done % step === 0 || event.done === event.total) && event.total > 50) {
          ctx.logger.info(`  ${event.done}/${event.total}`);
        }
      }
    },
    stop: () => {},
  };
}
