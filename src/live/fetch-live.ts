/**
 * One `POST /v1/prompts/get` for a live refresh: no retries (the next ttl is the retry), no waiting
 * (a 429 tells the caller how long to hold off), never throws: every outcome is a value.
 */
import type { Dispatcher } from 'undici';
import { retryAfterMs } from '../api/backoff.js';
import { type AttemptFailure, httpAttempt } from '../api/http-attempt.js';
import { type RateLimitReading, readRateLimit } from '../api/rate-limit-pacer.js';
import { readErrorBody, unwrapEnvelope } from '../api/schemas.js';
import { serviceText } from '../api/service-errors.js';
import { redact } from '../secrets.js';
import { VERSION } from '../version.js';

/** Prompt answers are small; a bigger one is refused rather than buffered. */
const MAX_BYTES = 8 * 1024 * 1024;
/** The service's own error message is kept to this many characters. */
const MAX_MESSAGE_CHARS = 500;

export type FetchOutcome =
  | { ok: true; prompt: unknown; rateLimit: RateLimitReading | undefined }
  | { ok: false; reason: string; status?: number; retryAfterMs?: number; rateLimit: RateLimitReading | undefined };

export interface FetchTarget {
  dispatcher: Dispatcher;
  /** The service's address, as reasons name it. */
  baseUrl: string;
  /** Path prefix of the base URL (`''` or `/api`). */
  basePath: string;
  apiKey: string | undefined;
  timeoutMs: number;
}

/**
 * One get of `packageName`. Every reason names the address tried; a wait the service asks for is
 * capped at `maxWaitMs`.
 */
export async function fetchLivePrompt(target: FetchTarget, packageName: string, maxWaitMs: number): Promise<FetchOutcome> {
  const at = target.baseUrl;
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/json',
    'user-agent': `promptlock/${VERSION} live`,
  };
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  const secrets = [target.apiKey];
  let answer;
  try {
    answer = await httpAttempt(target.dispatcher, undefined, {
      method: 'POST',
      path: `${target.basePath}/v1/prompts/get`,
      headers,
      body: JSON.stringify({ package_name: packageName }),
      timeoutMs: target.timeoutMs,
      maxBytes: MAX_BYTES,
    });
  } catch (error) {
    const failure = error as AttemptFailure;
    const why =
      failure.kind === 'timeout'
        ? `no answer from the service at ${at} within ${target.timeoutMs} ms`
        : failure.kind === 'too-large'
          ? `the answer of the service at ${at} is larger than ${MAX_BYTES} bytes`
          : `the service at ${at} could not be reached (${failure.code})`;
    return { ok: false, reason: redact(why, secrets), rateLimit: undefined };
  }
  const now = Date.now();
  const rateLimit = readRateLimit(answer.headers, now);
  let json: unknown;
  try {
    json = JSON.parse(answer.body.toString('utf8'));
  } catch {
    json = undefined;
  }
  if (answer.status === 200) {
    if (json === undefined) return { ok: false, reason: `the answer of the service at ${at} is not JSON`, status: 200, rateLimit };
    return { ok: true, prompt: unwrapEnvelope(json, 'id'), rateLimit };
  }
  const body = readErrorBody(json);
  const detail = body.message ? `: ${serviceText(body.message, MAX_MESSAGE_CHARS)}` : '';
  const code = body.code ? ` ${serviceText(body.code, 60)}` : '';
  const reason = redact(`the service at ${at} answered ${answer.status}${code}${detail}`, secrets);
  if (answer.status === 429) {
    const header = answer.headers['retry-after'];
    let wait = retryAfterMs(Array.isArray(header) ? header[0] : header, body.retryAfterSeconds, now);
    if (wait === undefined && rateLimit) wait = Math.max(0, rateLimit.resetAtMs - now);
    wait = Math.min(wait ?? 60_000, maxWaitMs);
    return {
      ok: false,
      reason: `${reason.replace(/[\s.;:,]+$/, '')} (rate limit; no refresh for ${Math.ceil(wait / 1000)} s)`,
      status: 429,
      retryAfterMs: wait,
      rateLimit,
    };
  }
  return { ok: false, reason, status: answer.status, rateLimit };
}
