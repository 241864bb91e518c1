/**
 * Which floating prompts one poll checks. Polling keeps to a request budget (by default 20% of the
 * service's per-minute limit) and walks the prompts round-robin, so with 1,000 floating prompts
 * every one is still checked in turn and the rate limit is never tripped.
 */

/** Share of the per-minute rate limit that watch mode may spend. */
export const DEFAULT_BUDGET_SHARE = 0.2;
/** The spec's authenticated per-minute limit, used when none is configured. */
export const DEFAULT_LIMIT_PER_MINUTE = 1000;

export interface PollBudget {
  /** Requests one poll may send. At least 1. */
  perPoll: number;
  /** Requests per minute the polling may send at most. */
  perMinute: number;
}

export function pollBudget(options: { intervalSeconds: number; limitPerMinute?: number; share?: number }): PollBudget {
  const perMinute = Math.max(1, Math.floor((options.limitPerMinute ?? DEFAULT_LIMIT_PER_MINUTE) * (options.share ?? DEFAULT_BUDGET_SHARE)));
  const perPoll = Math.max(1, Math.floor((perMinute * options.intervalSeconds) / 60));
  return { perMinute, perPoll };
}

/** A round-robin cursor over a changing list of names. */
export class RoundRobin {
  private next = 0;

  /** Up to `count` names, continuing where the previous call stopped. */
  take(names: readonly string[], count: number): string[] {
    if (names.length === 0 || count <= 0) return [];
    const out: string[] = [];
    const n = Math.min(count, names.length);
    for (let i = 0; i < n; i++) out.push(names[(this.next + i) % names.length]!);
    this.next = (this.next + n) % names.length;
    return out;
  }
}
