/** Options, events and counters of the prompt service client (`createClient`). */
import type { ResolvedConfig } from '../config/types.js';
import type { Limits } from '../limits.js';

export interface ClientOptions {
  /** Address of the service, e.g. `https://api.baytos.ai`; `/v1/…` is appended to it. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; never printed unmasked. */
  apiKey?: string;
  /** Where the key was read (`PROMPTLOCK_API_KEY in .env.local`), for the error when it cannot be sent. */
  apiKeySource?: string | undefined;
  /** Requests in flight at once; also the size of the keep-alive pool. @default 16 */
  concurrency?: number;
  /** Deadline of one request, headers and body together. @default 30000 */
  timeoutMs?: number;
  /** Retries after a 5xx, a reset connection, a timeout or an invalid body. @default 5 */
  retries?: number;
  /** First backoff step; doubles per attempt with full jitter, capped at 8 s. @default 250 */
  backoffBaseMs?: number;
  /** Longest wait for a 429's Retry-After or a rate-limit window; beyond it, fail. @default 120000 */
  maxRetryAfterMs?: number;
  /**
   * False: a 429, or a window the `X-RateLimit-*` headers say is used up, fails at once with
   * `retryAfterMs` on the ServiceError instead of being waited for (`promptlock/live`, whose next
   * refresh is the retry). @default true
   */
  waitForRateLimit?: boolean;
  /**
   * Hard caps on what the service may send: pages, items and bytes of a listing, bytes of a JSON
   * answer and of a context file. Missing ones take DEFAULT_LIMITS; nothing the service announces
   * raises them (docs/security.md).
   */
  limits?: Partial<Limits>;
  /** Progress and `--verbose` output. Never given the key. */
  onEvent?: (event: ClientEvent) => void;
}

/**
 * The client options a resolved config asks for: every caller (CLI, library, plugin, workspace)
 * builds its client from here, so an option added to the config reaches all of them.
 */
export function clientOptionsFor(
  config: Pick<ResolvedConfig, 'baseUrl' | 'apiKey' | 'apiKeySource' | 'concurrency' | 'timeout' | 'limits'>,
): ClientOptions {
  return {
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    apiKeySource: config.apiKeySource,
    concurrency: config.concurrency,
    timeoutMs: config.timeout,
    limits: config.limits,
  };
}

/**
 * When two configs may share one client (`--recursive`, watch): exactly when they ask for the same
 * client options, read from the same `clientOptionsFor`, so an option added there also splits
 * clients that differ in it.
 */
export function clientKey(config: Parameters<typeof clientOptionsFor>[0]): string {
  const options = clientOptionsFor(config);
  return JSON.stringify(
    Object.keys(options)
      .sort()
      .map((name) => [name, options[name as keyof ClientOptions] ?? null]),
  );
}

export type RetryReason = 'server-error' | 'reset' | 'timeout' | 'invalid-body' | 'rate-limited';

export type ClientEvent =
  | { type: 'request'; method: string; path: string; attempt: number }
  | { type: 'retry'; reason: RetryReason; attempt: number; delayMs: number; what: string }
  | { type: 'rate-limit-wait'; ms: number }
  /** A 307 or 308 to the same origin, followed: the path it sent the request to (no query). */
  | { type: 'redirect'; status: number; path: string }
  /** `from`: the Retry-After header, the body's retry_after, or the backoff when neither is usable. */
  | { type: '429'; retryAfterMs: number; what: string; from: 'header' | 'body' | 'backoff' };

export interface ClientStats {
  /** Requests sent, retries included. */
  requests: number;
  /** Attempts repeated after a failure or a 429. */
  retries: number;
  /** 429 answers received. */
  status429: number;
  /** Time spent waiting for rate limits (pacing and Retry-After), in milliseconds. */
  waitedMs: number;
}
