/**
 * How many requests watch mode may send. Polling keeps to a budget (by default 20% of the service's
 * per-minute limit), counted over a sliding 60 s window of requests actually sent, and walks the
 * floating prompts round-robin, so with 1,000 of them every one is still checked in turn and the
 * rate limit is never tripped. Shared with promptlock/live, whose refreshes keep to the same
 * sliding window (here so live/ imports nothing of watch/).
 */

/** Share of the per-minute rate limit that watch mode may spend. */
export const DEFAULT_BUDGET_SHARE = 0.2;
/** The service's per-minute limit with a key (docs/service-interface.md), used when none is configured. */
export const DEFAULT_LIMIT_PER_MINUTE = 1000;

export interface PollBudget {
  /** Requests one poll may send. At least 1. */
  perPoll: number;
  /** Requests per minute the polling may send at most. */
  perMinute: number;
}

export function pollBudget(options: { intervalSeconds: number; limitPerMinute?: number; share?: number }): PollBudget {
  const perMinute = Math.max(1, Math.floor((options.limitPerMinute ?? DEFAULT_LIMIT_PER_MINUTE) * (options.share ?? DEFAULT_BUDGET_SHARE)));
  // Polls are at least `intervalSeconds` apart, so this many per poll stays within `perMinute`.
  const perPoll = Math.max(1, Math.min(perMinute, Math.floor((perMinute * options.intervalSeconds) / 60)));
  return { perMinute, perPoll };
}

/** What a notice calls the two settings: the CLI's flags, or the bundler plugin's options. */
export interface BudgetSettings {
  /** The setting that asks for polls `seconds` apart. */
  interval: (seconds: number) => string;
  rateLimit: string;
}

export const CLI_BUDGET_SETTINGS: BudgetSettings = { interval: (seconds) => `--interval ${seconds}`, rateLimit: '--rate-limit' };

/**
 * Seconds between two checks of the same prompt when `floating` prompts take turns: a poll checks
 * `perPoll` of them, and a minute at most `perMinute`.
 */
export function checkPeriod(floating: number, budget: PollBudget, intervalSeconds: number): number {
  return Math.max(intervalSeconds, Math.ceil(floating / budget.perPoll) * intervalSeconds, (floating * 60) / budget.perMinute);
}

const seconds = (s: number) => (s >= 120 ? `${Math.round(s / 60)} min` : `${Number(s.toFixed(1))} s`);

/**
 * When the budget cannot check every floating prompt every `intervalSeconds`: how often each is
 * really checked, and what to change. Undefined when the interval is met.
 */
export function budgetNotice(options: {
  floating: number;
  intervalSeconds: number;
  limitPerMinute?: number;
  share?: number;
  settings: BudgetSettings;
}): string | undefined {
  const { floating, intervalSeconds, settings } = options;
  const limit = options.limitPerMinute ?? DEFAULT_LIMIT_PER_MINUTE;
  const share = options.share ?? DEFAULT_BUDGET_SHARE;
  const budget = pollBudget({ intervalSeconds, limitPerMinute: limit, share });
  const period = checkPeriod(floating, budget, intervalSeconds);
  if (floating === 0 || period <= intervalSeconds) return undefined;
  return (
    `Each of the ${floating} floating prompts is checked about every ${seconds(period)}, not every ${seconds(intervalSeconds)}: ` +
    `polling keeps to ${budget.perMinute} requests a minute (${Math.round(share * 100)}% of the service's limit of ${limit}), ${budget.perPoll} a poll. ` +
    `To check them more often, pin prompts to a version (those are not polled), or raise ${settings.rateLimit} if the service allows more than ${limit} a minute; ` +
    `${settings.interval(Math.ceil(period))} polls at the pace that is met.`
  );
}

/**
 * A round-robin cursor over a list of names that changes between calls. It remembers the last name
 * it handed out rather than an index, so names added or removed elsewhere in the list neither skip
 * nor repeat anyone: every name present for a whole lap is handed out once per lap.
 */
export class RoundRobin {
  private last: string | undefined;
  /** Completed passes over the list (a pass completes when its last name in order is handed out). */
  laps = 0;

  /** Up to `count` names, in sorted order, continuing after the name the previous call stopped at. */
  take(names: readonly string[], count: number): string[] {
    if (names.length === 0 || count <= 0) return [];
    const sorted = [...names].sort();
    const after = this.last === undefined ? -1 : sorted.findIndex((name) => name > this.last!);
    const start = after === -1 ? 0 : after;
    const out: string[] = [];
    for (let i = 0; i < Math.min(count, sorted.length); i++) {
      const index = (start + i) % sorted.length;
      out.push(sorted[index]!);
      if (index === sorted.length - 1) this.laps++;
    }
    this.last = out[out.length - 1];
    return out;
  }
}

/** Times of requests sent, kept for one window, to know how many the budget still allows. */
export class RequestWindow {
  private readonly times: number[] = [];

  constructor(private readonly windowMs = 60_000) {}

  record(count: number, now = Date.now()): void {
    for (let i = 0; i < count; i++) this.times.push(now);
  }

  /** Requests sent within the window ending at `now`. */
  used(now = Date.now()): number {
    while (this.times.length > 0 && this.times[0]! <= now - this.windowMs) this.times.shift();
    return this.times.length;
  }
}

/** Requests the next poll may send: its share, and never past the per-minute budget. */
export function pollAllowance(budget: PollBudget, window: RequestWindow, now = Date.now()): number {
  return Math.max(0, Math.min(budget.perPoll, budget.perMinute - window.used(now)));
}
