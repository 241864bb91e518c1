/**
 * One `POST /v1/prompts/get` for a live refresh, through the CLI's own client (src/api/): the same
 * deadline, decoding, charsets, redirects and base-URL rule as `sync`, with live's policy on top
 * (docs/live.md, "Caching, failures and rate limits"): one attempt (the next ttl is the retry),
 * no waiting (a 429 or a used-up window tells the caller how long to hold off), never throws:
 * every outcome is a value.
 */
import type { PromptServiceClient } from '../api/create-client.js';
import { createClient } from '../api/index.js';
import { ServiceError } from '../errors.js';
import type { LiveConnection } from './connection.js';

/** Prompt answers are small; a bigger one is refused rather than buffered. */
const MAX_BYTES = 8 * 1024 * 1024;
/** Requests a process's refresher sends at once. */
const CONNECTIONS = 4;

export type FetchOutcome = { ok: true; prompt: unknown } | { ok: false; reason: string; status?: number; retryAfterMs?: number };

/** The client of live refreshes: one attempt, no waiting for a rate limit. */
export function liveClient(connection: LiveConnection, requestTimeoutMs: number): PromptServiceClient {
  return createClient({
    baseUrl: connection.baseUrl,
    ...(connection.apiKey ? { apiKey: connection.apiKey, apiKeySource: connection.apiKeySource } : {}),
    concurrency: CONNECTIONS,
    timeoutMs: requestTimeoutMs,
    retries: 0,
    waitForRateLimit: false,
    limits: { responseBytes: MAX_BYTES },
  });
}

/**
 * One get of `packageName`. Every reason names the address tried; a wait the service asks for is
 * capped at `maxWaitMs`.
 */
export async function fetchLivePrompt(
  client: PromptServiceClient,
  baseUrl: string,
  packageName: string,
  maxWaitMs: number,
): Promise<FetchOutcome> {
  try {
    return { ok: true, prompt: await client.getPrompt(packageName) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const said = message.includes(baseUrl) ? message : `the service at ${baseUrl}: ${message}`;
    if (!(error instanceof ServiceError)) return { ok: false, reason: said };
    const status = error.status === undefined ? {} : { status: error.status };
    if (error.status === 429) {
      const wait = Math.min(error.retryAfterMs ?? 60_000, maxWaitMs);
      return {
        ok: false,
        reason: `${said.replace(/[\s.;:,]+$/, '')} (rate limit; no refresh for ${Math.ceil(wait / 1000)} s)`,
        ...status,
        retryAfterMs: wait,
      };
    }
    return { ok: false, reason: said, ...status };
  }
}
