/**
 * Delay before retry number `attempt` (1 for the first retry): "full jitter" over an exponential
 * ceiling, so clients that failed together do not come back together.
 */
export function backoffDelay(attempt: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Milliseconds a 429 asks to wait: the `Retry-After` header (seconds or an HTTP date), else the
 * body's `retry_after` (seconds); undefined when neither says. A negative number, a date already
 * past or anything else unreadable says nothing: the caller falls back to its backoff, so a
 * service cannot make it retry in a tight loop.
 */
export function retryAfterMs(header: string | undefined, bodySeconds: number | undefined, now: number = Date.now()): number | undefined {
  if (header !== undefined && header.trim() !== '') {
    const text = header.trim();
    if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
    // An HTTP date names a weekday or month; Date.parse alone would read "-5" as a year.
    const date = /[A-Za-z]/.test(text) ? Date.parse(text) : Number.NaN;
    if (!Number.isNaN(date) && date > now) return date - now;
  }
  if (bodySeconds !== undefined && Number.isFinite(bodySeconds) && bodySeconds >= 0) return Math.round(bodySeconds * 1000);
  return undefined;
}

/** The wait after the `limited`-th 429 in a row: what the service asks, else the backoff (1 s doubling, capped at 8 s). */
export function rateLimitedWait(
  header: string | undefined,
  bodySeconds: number | undefined,
  limited: number,
  now: number = Date.now(),
  random: () => number = Math.random,
): { ms: number; from: 'header' | 'body' | 'backoff' } {
  const fromHeader = retryAfterMs(header, undefined, now);
  if (fromHeader !== undefined) return { ms: fromHeader, from: 'header' };
  const fromBody = retryAfterMs(undefined, bodySeconds, now);
  if (fromBody !== undefined) return { ms: fromBody, from: 'body' };
  return { ms: backoffDelay(limited, 1000, 8000, random), from: 'backoff' };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
