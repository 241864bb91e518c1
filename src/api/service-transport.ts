import { Agent, type Dispatcher, Pool } from 'undici';
import { isLiteralLoopback } from '../config/base-url.js';
import { CLIENT_DEFAULTS } from '../config/client-defaults.js';
import { ServiceError } from '../errors.js';
import type { Limits } from '../limits.js';
import { redact } from '../secrets.js';
import { VERSION } from '../version.js';
import { backoffDelay, rateLimitedWait, sleep } from './backoff.js';
import type { ClientEvent, ClientStats, RetryReason } from './client-options.js';
import { ConcurrencyLimiter } from './concurrency-limiter.js';
import { decodeTextOrUndefined } from './decode-text.js';
import { type AttemptAnswer, type AttemptFailure, type BodySink, httpAttempt } from './http-attempt.js';
import { RateLimitPacer, readRateLimit } from './rate-limit-pacer.js';
import { readErrorBody } from './schemas.js';
import {
  type ErrorContext,
  failureError,
  httpError,
  invalidBodyError,
  notAServiceError,
  type RequestTarget,
  redirectError,
  serviceText,
  tooLargeError,
} from './service-errors.js';

export interface TransportOptions {
  baseUrl: string;
  apiKey: string | undefined;
  concurrency: number;
  timeoutMs: number;
  retries: number;
  backoffBaseMs: number;
  maxRetryAfterMs: number;
  /** False: a 429 or a used-up window fails at once with `retryAfterMs` instead of being waited for (`promptlock/live`). */
  waitForRateLimit: boolean;
  limits: Limits;
  onEvent: ((event: ClientEvent) => void) | undefined;
}

/**
 * Thrown by an answer's interpreter when a 2xx body is unusable. Retried like a 5xx when another
 * attempt may get a whole body (one cut short); not when the same answer would come back (a body
 * that breaks the schema, bytes that are not text in their charset).
 */
export class InvalidBody extends Error {
  readonly retry: boolean;
  constructor(message: string, options: { retry?: boolean } = {}) {
    super(message);
    this.retry = options.retry ?? true;
  }
}

/** Redirects followed for one request (same origin, 307 or 308 only) before it is an error. */
const MAX_REDIRECTS = 5;
/** How long `close` lets requests still queued in a pool finish before it cuts them. */
const CLOSE_GRACE_MS = 1000;

export interface Exchange<T> {
  method: 'GET' | 'POST';
  /** Path and query, from the origin. */
  path: string;
  body?: string;
  target: RequestTarget;
  /** Largest body accepted; a larger one is cut off at this size, never buffered whole. */
  maxBytes: number;
  /** Where a 2xx body goes as it arrives instead of into memory (a download to disk). */
  sink?: BodySink;
  /** The limit `maxBytes` comes from, as the error names it: `the limit limits.responseBytes = …`. */
  sizeLimit: string;
  /** Turns a 2xx answer into the result; throws InvalidBody when it is unusable. */
  interpret: (answer: AttemptAnswer) => T;
}

/**
 * Everything between "send this" and "here is a valid answer": the keep-alive pool, the
 * concurrency bound, rate-limit pacing, the per-request deadline and retries with backoff.
 */
export class ServiceTransport {
  readonly stats: ClientStats = { requests: 0, retries: 0, status429: 0, waitedMs: 0 };
  private readonly pool: Pool;
  /** Pre-signed download addresses live on other hosts; they share the bound, not the pacing. */
  private downloads: Agent | undefined;
  private readonly limiter: ConcurrencyLimiter;
  private readonly pacer = new RateLimitPacer();
  private readonly errorContext: ErrorContext;
  /**
   * A failure no other request can escape (401, 403, unreachable, not a prompt service): once seen,
   * requests not yet sent fail with it instead of asking again, so a run ends with one message.
   * Forgotten once no request is under way, so a long-lived client (watch) recovers after an outage.
   */
  private fatal: ServiceError | undefined;
  private underWay = 0;

  constructor(private readonly options: TransportOptions) {
    const origin = new URL(options.baseUrl).origin;
    this.pool = new Pool(origin, { connections: options.concurrency, keepAliveTimeout: 30_000, pipelining: 1 });
    this.limiter = new ConcurrencyLimiter(options.concurrency);
    this.errorContext = { baseUrl: options.baseUrl, apiKey: options.apiKey, timeoutMs: options.timeoutMs };
  }

  /** A call to the service: authenticated, paced. */
  service<T>(exchange: Exchange<T>): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': `promptlock/${VERSION}` };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (exchange.body !== undefined) headers['content-type'] = 'application/json';
    return this.execute(exchange, this.pool, undefined, headers, true);
  }

  /** A download from a pre-signed address: never authenticated, not paced. */
  download<T>(exchange: Exchange<T>, origin: string): Promise<T> {
    this.downloads ??= new Agent({ connections: this.options.concurrency, keepAliveTimeout: 10_000 });
    return this.execute(exchange, this.downloads, origin, { 'user-agent': `promptlock/${VERSION}` }, false);
  }

  /**
   * Closes the pools once what is in flight has ended; a request the pool still holds after
   * CLOSE_GRACE_MS (every attempt has ended by its deadline by then) is cut, so a close never hangs.
   */
  async close(): Promise<void> {
    await Promise.all([this.pool, this.downloads].map((dispatcher) => dispatcher && closeWithin(dispatcher, CLOSE_GRACE_MS)));
  }

  /** Closes the pools at once: requests in flight fail. */
  async destroy(): Promise<void> {
    await Promise.all([this.pool.destroy(), this.downloads?.destroy()]);
  }

  private async execute<T>(
    exchange: Exchange<T>,
    dispatcher: Dispatcher,
    origin: string | undefined,
    headers: Record<string, string>,
    paced: boolean,
  ): Promise<T> {
    this.underWay++;
    try {
      return await this.attempts(exchange, dispatcher, origin, headers, paced);
    } finally {
      if (--this.underWay === 0) this.fatal = undefined;
    }
  }

  private async attempts<T>(
    exchange: Exchange<T>,
    dispatcher: Dispatcher,
    origin: string | undefined,
    headers: Record<string, string>,
    paced: boolean,
  ): Promise<T> {
    const { target } = exchange;
    const requestOrigin = origin ?? new URL(this.options.baseUrl).origin;
    let path = exchange.path;
    let redirects = 0;
    let failures = 0;
    let limited = 0;
    for (let attempt = 1; ; attempt++) {
      let answer: AttemptAnswer | undefined;
      let failure: AttemptFailure | undefined;
      await this.limiter.acquire();
      try {
        if (paced) await this.waitForPacer(target);
        if (paced && this.fatal) {
          this.pacer.finish(undefined, false, Date.now());
          throw this.fatal;
        }
        this.stats.requests++;
        this.emit({ type: 'request', method: exchange.method, path: path.split('?')[0]!, attempt });
        try {
          answer = await httpAttempt(dispatcher, origin, {
            method: exchange.method,
            path,
            headers,
            body: exchange.body,
            timeoutMs: this.options.timeoutMs,
            maxBytes: exchange.maxBytes,
            sink: exchange.sink,
          });
        } catch (error) {
          failure = error as AttemptFailure;
        }
        if (paced) {
          const now = Date.now();
          const ok = answer !== undefined && answer.status < 400;
          this.pacer.finish(answer ? readRateLimit(answer.headers, now) : undefined, ok, now);
        }
      } finally {
        this.limiter.release();
      }

      let retry: RetryReason;
      let final: () => ServiceError;
      if (failure) {
        if (failure.kind === 'sink') throw failure.cause;
        if (failure.kind === 'too-large') throw tooLargeError(exchange.maxBytes, exchange.sizeLimit, target, this.errorContext);
        // The same bytes on every attempt: an encoding promptlock cannot decode, or not what it says.
        if (failure.kind === 'encoding') throw invalidBodyError(failure.message, target, this.errorContext, attempt);
        retry = failure.kind === 'timeout' ? 'timeout' : 'reset';
        const seen = failure;
        // A request the HTTP client refuses poisons its connection (undici counts the connection
        // busy for good): no other request is sent after it.
        const fatal = paced && (seen.kind === 'network' || seen.kind === 'refused');
        final = () => this.latch(failureError(seen, target, this.errorContext, attempt), fatal);
        if (seen.kind === 'refused') throw final();
        // No such host now is no such host in a second: said once (docs/service-interface.md).
        if (seen.code === 'ENOTFOUND') throw final();
        // Refused by this very machine: nothing listens on that port, and waiting will not start it.
        if (seen.code === 'ECONNREFUSED' && isLiteralLoopback(new URL(requestOrigin).hostname)) throw final();
      } else if (answer!.status === 429) {
        this.stats.status429++;
        const body = readErrorBody(parseJson(answer!));
        const header = answer!.headers['retry-after'];
        // A negative or past Retry-After is no answer: the backoff applies (docs/security.md).
        const { ms: waitMs, from } = rateLimitedWait(Array.isArray(header) ? header[0] : header, body.retryAfterSeconds, limited + 1);
        this.emit({ type: '429', retryAfterMs: waitMs, what: target.what, from });
        if (paced) this.pacer.block(Date.now() + waitMs);
        if (!this.options.waitForRateLimit) throw httpError(429, body, target, this.errorContext, attempt, waitMs);
        if (waitMs > this.options.maxRetryAfterMs) throw this.tooLongWait(waitMs, target, '429');
        if (++limited > Math.max(this.options.retries, 3)) throw httpError(429, body, target, this.errorContext, attempt);
        // Every request of this client holds back (the pacer, above), not only this one.
        if (!paced) await this.wait(waitMs);
        this.stats.retries++;
        this.emit({ type: 'retry', reason: 'rate-limited', attempt, delayMs: waitMs, what: target.what });
        continue;
      } else if (answer!.status >= 300 && answer!.status < 400) {
        const next = this.redirect(answer!, new URL(path, requestOrigin), ++redirects, target, paced);
        this.emit({ type: 'redirect', status: answer!.status, path: next.split('?')[0]! });
        path = next;
        continue;
      } else if (paced && notAService(answer!)) {
        // An ordinary web server, not a prompt service: no retry can change that (docs/security.md).
        throw this.latch(notAServiceError(` (answered ${answer!.status}${mediaType(answer!)})`, this.errorContext), true);
      } else if (answer!.status >= 500) {
        retry = 'server-error';
        const seen = answer!;
        final = () => httpError(seen.status, readErrorBody(parseJson(seen)), target, this.errorContext, attempt);
      } else if (answer!.status >= 400) {
        const status = answer!.status;
        throw this.latch(
          httpError(status, readErrorBody(parseJson(answer!)), target, this.errorContext, attempt),
          paced && (status === 401 || status === 403),
        );
      } else {
        try {
          return exchange.interpret(answer!);
        } catch (error) {
          if (!(error instanceof InvalidBody)) throw error;
          retry = 'invalid-body';
          const problem = error.message;
          final = () => invalidBodyError(problem, target, this.errorContext, attempt);
          if (!error.retry) throw final();
        }
      }

      failures++;
      if (failures > this.options.retries) throw final();
      const delayMs = backoffDelay(failures, this.options.backoffBaseMs, CLIENT_DEFAULTS.backoffCapMs);
      this.stats.retries++;
      this.emit({ type: 'retry', reason: retry, attempt, delayMs, what: target.what });
      await sleep(delayMs);
    }
  }

  /**
   * The path a redirect sends the request to, when it is followed: a 307 or 308 (method and body
   * kept) to the same origin, at most MAX_REDIRECTS times. Anything else is an error naming the
   * target, so the key never travels to another origin (docs/security.md).
   */
  private redirect(answer: AttemptAnswer, requested: URL, hops: number, target: RequestTarget, paced: boolean): string {
    const header = answer.headers.location;
    let location: URL | undefined;
    try {
      location = new URL((Array.isArray(header) ? header[0] : header) ?? '', requested);
    } catch {
      location = undefined;
    }
    if (!header || !location) throw redirectError(answer.status, undefined, '', target, this.errorContext);
    const sameOrigin = location.origin === requested.origin;
    const why = !sameOrigin
      ? 'another origin'
      : answer.status !== 307 && answer.status !== 308
        ? `a ${answer.status}, which promptlock does not follow`
        : hops > MAX_REDIRECTS
          ? `more than ${MAX_REDIRECTS} redirects`
          : undefined;
    if (why !== undefined) throw this.latch(redirectError(answer.status, location, why, target, this.errorContext), paced && !sameOrigin);
    return `${location.pathname}${location.search}`;
  }

  /** Holds a request until the pacer lets it go; fails rather than wait longer than allowed. */
  private async waitForPacer(target: RequestTarget): Promise<void> {
    for (;;) {
      const plan = this.pacer.plan(Date.now());
      if (plan.kind === 'go') {
        this.pacer.start();
        return;
      }
      if (plan.kind === 'wait' && !this.options.waitForRateLimit) throw this.notWaiting(plan.ms, target);
      if (plan.kind === 'wait' && plan.ms > this.options.maxRetryAfterMs) throw this.tooLongWait(plan.ms, target, 'pacing');
      const started = Date.now();
      if (plan.kind === 'wait') this.emit({ type: 'rate-limit-wait', ms: plan.ms });
      // A probe's answer may change the plan before the time is up; re-plan on every answer.
      await this.pacer.waitForChange(plan.kind === 'wait' ? plan.ms : 1000);
      // Waiting for the probe's answer is not waiting for the rate limit.
      if (plan.kind === 'wait') this.stats.waitedMs += Date.now() - started;
    }
  }

  private async wait(ms: number): Promise<void> {
    this.emit({ type: 'rate-limit-wait', ms });
    await sleep(ms);
    this.stats.waitedMs += ms;
  }

  private tooLongWait(ms: number, target: RequestTarget, why: '429' | 'pacing'): ServiceError {
    const seconds = Math.ceil(ms / 1000);
    const limit = Math.round(this.options.maxRetryAfterMs / 1000);
    const what =
      why === '429'
        ? `The service answered 429 (rate limit exceeded) and asks to wait ${seconds} s`
        : `The service's rate limit is used up for another ${seconds} s`;
    return new ServiceError(redact(`${what} while ${target.what}; promptlock waits at most ${limit} s.`, [this.options.apiKey]), {
      status: 429,
      code: 'rate_limit_exceeded',
      hint: 'Try again after the rate limit window resets, or ask for a higher limit.',
    });
  }

  /** A request not sent: the window is used up, and this client does not wait (`waitForRateLimit: false`). */
  private notWaiting(ms: number, target: RequestTarget): ServiceError {
    return new ServiceError(
      redact(
        `The service's rate limit is used up for another ${Math.ceil(ms / 1000)} s (${this.options.baseUrl}); not sent while ${target.what}.`,
        [this.options.apiKey],
      ),
      { status: 429, code: 'rate_limit_exceeded', retryAfterMs: ms },
    );
  }

  private latch(error: ServiceError, fatal: boolean): ServiceError {
    if (fatal) this.fatal ??= error;
    return error;
  }

  private emit(event: ClientEvent): void {
    this.options.onEvent?.(event);
  }
}

/**
 * What no prompt service answers: 501 or 405 to one of its own endpoints (a static web server
 * refusing POST), or an HTML page. A 5xx page from a proxy in front of a service that is down
 * (502, 503, 504, 500) is still retried.
 */
function notAService(answer: AttemptAnswer): boolean {
  if (answer.status === 501 || answer.status === 405) return true;
  return answer.status < 500 && /^text\/html\b/.test(mediaType(answer).slice(2));
}

/** `, text/html` from the content type, fit to print; empty when there is none. */
function mediaType(answer: AttemptAnswer): string {
  const header = answer.headers['content-type'];
  const type = (Array.isArray(header) ? header[0] : header)?.split(';')[0]?.trim().toLowerCase();
  return type ? `, ${serviceText(type, 60)}` : '';
}

/** An error answer's body as JSON, or undefined when it is not JSON (error pages, truncated answers, bytes that are not text). */
function parseJson(answer: AttemptAnswer): unknown {
  const text = decodeTextOrUndefined(answer);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `close()`, and `destroy()` for what it still holds after `ms`. */
async function closeWithin(dispatcher: Dispatcher, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = dispatcher.close().then(() => true);
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    if (!(await Promise.race([closed, late]))) await dispatcher.destroy();
  } finally {
    clearTimeout(timer);
  }
}
