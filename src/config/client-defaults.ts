/**
 * The service client's defaults, declared once: the client (src/api/) falls back to them, the
 * config schema (src/config/config-schema.ts) documents and applies them, live caps its waits
 * with them (docs/live.md).
 */
export const CLIENT_DEFAULTS = {
  concurrency: 16,
  timeoutMs: 30_000,
  retries: 5,
  backoffBaseMs: 250,
  backoffCapMs: 8_000,
  maxRetryAfterMs: 120_000,
} as const;
