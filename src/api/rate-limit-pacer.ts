/**
 * Paces requests by the service's `X-RateLimit-Remaining` / `X-RateLimit-Reset` headers so a
 * sync larger than the window waits for the reset instead of collecting 429s. One pacer is
 * shared by every request of a client.
 *
 * The rule: after a reading (remaining R), the requests that were in flight when it arrived plus
 * those started since never exceed R. In flight ones may already be counted in R; counting them
 * again only makes the pacer more careful. When R is used up, nothing starts before the reset;
 * then a single probe request learns the new window before the others follow.
 */

export interface RateLimitReading {
  remaining: number;
  /** When the window resets, in local epoch milliseconds. */
  resetAtMs: number;
}

export type PacerPlan = { kind: 'go' } | { kind: 'wait'; ms: number } | { kind: 'wait-for-answer' };

/** Slack after the announced reset, as timers and clocks are not exact (its whole-second rounding is RESET_PRECISION_MS). */
export const RESET_MARGIN_MS = 50;
/** `X-RateLimit-Reset` is whole seconds; the real reset may fall up to this much after it. */
const RESET_PRECISION_MS = 1000;

export class RateLimitPacer {
  private reading: RateLimitReading | undefined;
  /** Requests counted against `reading.remaining`. */
  private used = 0;
  private inFlight = 0;
  /** Set once a successful answer carries no rate-limit headers: nothing to pace by. */
  private unpaced = false;
  /** A 429's Retry-After holds every request until then. */
  private blockedUntil = 0;
  /** The reset we already waited for; seeing it again exhausted means it was rounded down. */
  private expiredResetAtMs: number | undefined;
  /** Set once an answer announced a reset already past: the service rounds it down. */
  private resetRoundsDown = false;
  private waiters: (() => void)[] = [];

  /** What a request that wants to start now must do. Pure, apart from reading the state. */
  plan(now: number): PacerPlan {
    if (now < this.blockedUntil) return { kind: 'wait', ms: this.blockedUntil - now };
    if (this.unpaced) return { kind: 'go' };
    const reading = this.reading;
    if (reading === undefined) return this.inFlight === 0 ? { kind: 'go' } : { kind: 'wait-for-answer' };
    if (this.used < reading.remaining) return { kind: 'go' };
    let resetAt = reading.resetAtMs + RESET_MARGIN_MS + (this.resetRoundsDown ? RESET_PRECISION_MS : 0);
    if (this.expiredResetAtMs !== undefined && reading.resetAtMs <= this.expiredResetAtMs) {
      resetAt = Math.max(reading.resetAtMs, this.expiredResetAtMs) + RESET_PRECISION_MS + RESET_MARGIN_MS;
    }
    if (now < resetAt) return { kind: 'wait', ms: resetAt - now };
    // The window is over: forget it, and let one probe request find out the new one.
    this.expiredResetAtMs = reading.resetAtMs;
    this.reading = undefined;
    this.used = 0;
    return this.inFlight === 0 ? { kind: 'go' } : { kind: 'wait-for-answer' };
  }

  /** Records that a request started (after `plan` said go). */
  start(): void {
    this.inFlight++;
    if (this.reading) this.used++;
  }

  /**
   * Records the end of a request and what its answer said. `ok` is a successful answer: only
   * such an answer without headers proves the service does not rate-limit.
   */
  finish(reading: RateLimitReading | undefined, ok: boolean, now: number): void {
    this.inFlight--;
    if (reading && reading.resetAtMs < now - RESET_MARGIN_MS) this.resetRoundsDown = true;
    if (reading) this.observe(reading);
    else if (ok && this.reading === undefined && this.expiredResetAtMs === undefined) this.unpaced = true;
    this.wake();
  }

  /** A 429: hold every request until `until` (epoch milliseconds). */
  block(until: number): void {
    this.blockedUntil = Math.max(this.blockedUntil, until);
  }

  private observe(next: RateLimitReading): void {
    const current = this.reading;
    // Answers arrive out of order: keep the newest window, and within one window the most
    // pessimistic view of what is left.
    const newerWindow = current === undefined || next.resetAtMs > current.resetAtMs;
    const sameWindowTighter =
      current !== undefined && next.resetAtMs === current.resetAtMs && next.remaining - this.inFlight < current.remaining - this.used;
    if (current === undefined && this.expiredResetAtMs !== undefined && next.resetAtMs < this.expiredResetAtMs) return;
    if (newerWindow || sameWindowTighter) {
      this.reading = next;
      this.used = this.inFlight;
    }
  }

  /** Resolves on the next answer, or after `ms` at most. */
  waitForChange(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms));
      const self = this;
      function done(): void {
        clearTimeout(timer);
        self.waiters = self.waiters.filter((w) => w !== done);
        resolve();
      }
      this.waiters.push(done);
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}

/**
 * Reads the rate-limit headers of an answer. `X-RateLimit-Reset` is Unix seconds on the
 * service's clock; a `Date` header more than a couple of seconds off ours is corrected for.
 */
export function readRateLimit(headers: Record<string, string | string[] | undefined>, now: number): RateLimitReading | undefined {
  const remaining = Number(first(headers['x-ratelimit-remaining']));
  const reset = Number(first(headers['x-ratelimit-reset']));
  if (!Number.isFinite(remaining) || !Number.isFinite(reset) || first(headers['x-ratelimit-remaining']) === undefined) {
    return undefined;
  }
  // Some services send the seconds left instead of a timestamp; tell them apart by size.
  let resetAtMs = reset > 1e9 ? reset * 1000 : now + reset * 1000;
  const serverDate = Date.parse(first(headers.date) ?? '');
  if (reset > 1e9 && !Number.isNaN(serverDate) && Math.abs(serverDate - now) > 2000) resetAtMs -= serverDate - now;
  return { remaining: Math.max(0, Math.floor(remaining)), resetAtMs };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
