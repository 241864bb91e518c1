/**
 * The service's two-tier rate limits (docs/service-interface.md): per caller, a per-minute and a per-hour fixed window, each
 * starting with the caller's first request in it. A request is allowed only when every window has
 * room; a refused request uses up nothing. The headers describe the window with the fewest
 * requests left (on a tie, the one that resets later, so `Retry-After` is always long enough).
 */
import type { WindowLimits } from './server-options.js';

export interface RateDecision {
  allowed: boolean;
  /** The reported window. */
  window: 'minute' | 'hour';
  limit: number;
  remaining: number;
  /** Unix milliseconds when the reported window resets. */
  resetAt: number;
}

interface Window {
  count: number;
  resetAt: number;
}

export interface RateLimiter {
  /** Counts one request of `caller` if every window has room. */
  take(caller: string, limits: WindowLimits, now?: number): RateDecision;
  /** The state `take` would report, without counting a request. */
  peek(caller: string, limits: WindowLimits, now?: number): RateDecision;
}

/** Above this many callers, forget those whose windows have all expired. */
const SWEEP_AT = 10_000;

export function createRateLimiter(windowMs: { minuteMs: number; hourMs: number }): RateLimiter {
  const callers = new Map<string, [Window, Window]>();

  function windowsOf(caller: string, now: number): [Window, Window] {
    let windows = callers.get(caller);
    if (!windows) {
      if (callers.size >= SWEEP_AT) {
        for (const [key, [minute, hour]] of callers) if (minute.resetAt <= now && hour.resetAt <= now) callers.delete(key);
      }
      windows = [
        { count: 0, resetAt: now + windowMs.minuteMs },
        { count: 0, resetAt: now + windowMs.hourMs },
      ];
      callers.set(caller, windows);
    }
    const lengths = [windowMs.minuteMs, windowMs.hourMs];
    windows.forEach((window, i) => {
      if (window.resetAt <= now) {
        window.count = 0;
        window.resetAt = now + lengths[i]!;
      }
    });
    return windows;
  }

  function decide(caller: string, limits: WindowLimits, now: number, count: boolean): RateDecision {
    const windows = windowsOf(caller, now);
    const caps = [limits.perMinute, limits.perHour];
    const allowed = windows.every((window, i) => window.count < caps[i]!);
    if (allowed && count) for (const window of windows) window.count++;
    let reported: RateDecision | undefined;
    windows.forEach((window, i) => {
      const remaining = Math.max(0, caps[i]! - window.count);
      if (!reported || remaining < reported.remaining || (remaining === reported.remaining && window.resetAt > reported.resetAt)) {
        reported = { allowed, window: i === 0 ? 'minute' : 'hour', limit: caps[i]!, remaining, resetAt: window.resetAt };
      }
    });
    return reported!;
  }

  return {
    take: (caller, limits, now = Date.now()) => decide(caller, limits, now, true),
    peek: (caller, limits, now = Date.now()) => decide(caller, limits, now, false),
  };
}
