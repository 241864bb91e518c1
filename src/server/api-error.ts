/**
 * Error responses of the local service, in the two shapes of docs/service-interface.md ("Envelopes and errors"): flat
 * (`{ "error": "<message>" }`, 404 also with `message`) and nested
 * (`{ "error": { "code", "message", "details"?, "retry_after"? } }`).
 */

export type ErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'rate_limit_exceeded'
  | 'validation_error'
  | 'payload_too_large'
  | 'method_not_allowed'
  | 'internal_error';

/** Thrown by route handlers; the request pipeline turns it into the response. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Extra response headers (`Allow` on 405). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** Characters of a request's value an error message repeats; the rest is cut, and says so. */
const ECHO_LIMIT = 200;

/**
 * A value from the request as an error message repeats it: at most ECHO_LIMIT characters, marked
 * when cut, so a huge path, name or body cannot come back in the answer or flood a log.
 */
export function echo(value: string, limit = ECHO_LIMIT): string {
  return value.length > limit ? `${value.slice(0, limit)}… (truncated, ${value.length} characters)` : value;
}

/** No message is longer than this, whatever it quotes: the last guard against echoing a request. */
const MESSAGE_LIMIT = 1_000;

/** Short titles for the flat shape, where `error` is one string and 404 carries the detail in `message`. */
const FLAT_TITLES: Partial<Record<ErrorCode, string>> = { not_found: 'Not found' };

export function errorBody(error: ApiError, shape: 'flat' | 'nested', retryAfter?: number): unknown {
  const message = echo(error.message, MESSAGE_LIMIT);
  if (shape === 'flat') {
    const body: Record<string, unknown> = error.status === 404 ? { error: FLAT_TITLES.not_found, message } : { error: message };
    if (retryAfter !== undefined) body.retry_after = retryAfter;
    return body;
  }
  const inner: Record<string, unknown> = { code: error.code, message };
  if (error.details) inner.details = error.details;
  if (retryAfter !== undefined) inner.retry_after = retryAfter;
  return { error: inner };
}
