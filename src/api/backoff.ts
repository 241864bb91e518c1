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
 * body's `retry_after` (seconds); undefined when neither says.
 */
export function retryAfterMs(header: string | undefined, bodySeconds: number | undefined, now: number = Date.now()): number | undefined {
  if (header !== undefined && header.trim() !== '') {
    const text = header.trim();
    if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
    const date = Date.parse(text);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  if (bodySeconds !== undefined && Number.isFinite(bodySeconds) && bodySeconds >= 0) return Math.round(bodySeconds * 1000);
  return undefined;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
