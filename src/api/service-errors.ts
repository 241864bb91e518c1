/**
 * The messages of every way a request can fail. Each says what happened, for which prompt, and
 * what to do; the key only ever appears masked.
 */
import { ServiceError } from '../errors.js';
import { describeLimit, type LimitName, type Limits } from '../limits.js';
import { parsePackageName } from '../package-name.js';
import { maskKey, redact } from '../secrets.js';
import { oneLine } from '../terminal-text.js';
import { pluralise } from '../util/pluralise.js';
import type { AttemptFailure } from './http-attempt.js';
import type { ErrorBody } from './schemas.js';

/** What a request was for, as error messages tell it. */
export interface RequestTarget {
  method: string;
  /** The endpoint path as docs/service-interface.md names it (`/v1/prompts`), without query or base path. */
  endpoint: string;
  /** `fetching @acme/x`, `listing prompts`… */
  what: string;
  packageName?: string;
  /** The message for a 404, when the endpoint has a better one than "no such path", and its hint. */
  notFound?: string;
  notFoundHint?: string;
  /** For a download: the origin of the file's address, named instead of the service when it cannot be reached. */
  fileHost?: string;
  /** Message and hint for a 400, when the endpoint has an expected one (not a promptlock bug). */
  badRequest?: { message: string; hint: string };
}

export interface ErrorContext {
  baseUrl: string;
  apiKey: string | undefined;
  timeoutMs: number;
}

const STATUS_CODES: Record<number, string> = { 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 429: 'rate_limit_exceeded' };

/** An error answer the client does not retry (or stopped retrying). */
export function httpError(
  status: number,
  body: ErrorBody,
  target: RequestTarget,
  ctx: ErrorContext,
  attempts: number,
  /** For a 429 the client does not wait for: how long the service asks to wait. */
  retryAfterMs?: number,
): ServiceError {
  const key = ctx.apiKey ? maskKey(ctx.apiKey) : undefined;
  // The service's own words are printed: no control characters, and not a page of them.
  const code = serviceText(body.code, 60) ?? STATUS_CODES[status] ?? (status >= 500 ? 'server_error' : 'bad_request');
  // The service's own words end our sentence, so drop their final period.
  const detail = serviceText(body.message, 500)?.trim().replace(/\.+$/, '');
  const said = detail ? ` The service said: ${detail}.` : '';
  // No key goes to a file host: its 401 or 403 says the pre-signed address was refused, not the key.
  if (target.fileHost && (status === 401 || status === 403)) {
    return make(
      `The file host ${target.fileHost} refused ${target.what.replace(/^downloading /, 'the download of ')} (${status} ${code}); its pre-signed address may have expired.${said}`,
      'Run the command again: it asks the service for a fresh address.',
    );
  }
  switch (status) {
    case 401:
      return make(
        key
          ? `The service rejected the API key ${key} (401 unauthorized) at ${ctx.baseUrl}.`
          : `The service needs an API key (401 unauthorized) at ${ctx.baseUrl}, and none is set.`,
        key ? 'Set PROMPTLOCK_API_KEY to a valid key.' : 'Set PROMPTLOCK_API_KEY (or BAYT_API_KEY) to your API key.',
      );
    case 403: {
      const workspace = target.packageName ? parsePackageName(target.packageName)?.workspace : undefined;
      const scope = workspace ? ` to workspace "${workspace}"` : '';
      const subject = key ? `The API key ${key}` : 'A caller without an API key';
      return make(
        `${subject} has no access${scope} (403 forbidden) while ${target.what}.`,
        `Use a key with access${scope || ' to this workspace'}${target.packageName ? `, or remove ${target.packageName} from prompts` : ''}.${said}`,
      );
    }
    case 404:
      return make(
        target.notFound ?? `The service has no ${target.method} ${target.endpoint} (404) at ${ctx.baseUrl}.`,
        target.notFoundHint ??
          (target.packageName
            ? 'Check the package name and its selector (vN, latest, draft).'
            : 'Check baseUrl: it is the service address, without /v1.'),
      );
    case 429:
      if (retryAfterMs !== undefined) {
        return make(
          `The service answered 429 (rate limit exceeded) at ${ctx.baseUrl} while ${target.what}.${said}`,
          `It asks to wait ${Math.ceil(retryAfterMs / 1000)} s.`,
        );
      }
      return make(
        `The service kept answering 429 (rate limit exceeded) while ${target.what}, ${pluralise(attempts, 'attempt')}.`,
        'Wait for the rate limit window to pass, or lower concurrency.',
      );
    default:
      if (status >= 500) {
        return make(
          `The service failed with ${status} ${code} while ${target.what}, ${pluralise(attempts, 'attempt')}${detail ? `: ${detail}` : ''}.`,
          'The service may be down or overloaded; try again later.',
        );
      }
      if (status === 400 && target.badRequest) return make(`${target.badRequest.message}${said}`, target.badRequest.hint);
      return make(
        `The service refused ${target.method} ${target.endpoint} while ${target.what} (${status} ${code})${detail ? `: ${detail}` : ''}.`,
        'This looks like a bug in promptlock or a service change; run with --verbose and report it.',
      );
  }

  function make(message: string, hint: string): ServiceError {
    return new ServiceError(redact(message, [ctx.apiKey]), {
      status,
      code,
      hint: redact(hint, [ctx.apiKey]),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
}

/** No complete answer after the last attempt. */
export function failureError(failure: AttemptFailure, target: RequestTarget, ctx: ErrorContext, attempts: number): ServiceError {
  const tries = pluralise(attempts, 'attempt');
  // A download fails at the file's host, which the service named: not at the service.
  const where = target.fileHost ? `the file host ${target.fileHost}` : `the prompt service at ${ctx.baseUrl}`;
  const check = target.fileHost
    ? 'The address came from the service (a pre-signed file address); check the network, or whether that host is reachable from here'
    : 'Check baseUrl (or PROMPTLOCK_BASE_URL) and the network';
  switch (failure.kind) {
    case 'network':
      if (failure.code === 'ENOTFOUND') {
        // No DNS record now is no DNS record in a second: said once, not retried (docs/service-interface.md).
        const host = new URL(target.fileHost ?? ctx.baseUrl).hostname;
        return new ServiceError(`Could not reach ${where}: the host name ${host} is not found (ENOTFOUND).`, {
          code: 'network',
          cause: failure,
          hint: `${check}: is the host name spelt right, and does this machine's DNS resolve it?`,
        });
      }
      return new ServiceError(`Could not reach ${where}: ${failure.code}.`, {
        code: 'network',
        cause: failure,
        hint:
          attempts === 1 && failure.code === 'ECONNREFUSED'
            ? `Nothing listens there on this machine. ${check}; for a local service, start \`promptlock serve\` and use the URL it prints.`
            : `${check}; gave up after ${tries} while ${target.what}.`,
      });
    case 'timeout':
      return new ServiceError(`${capitalise(where)} did not answer within ${ctx.timeoutMs} ms while ${target.what} (${tries}).`, {
        code: 'timeout',
        cause: failure,
        hint: 'The service may be overloaded; try again later or raise the timeout option.',
      });
    case 'refused':
      // The HTTP client refused to send it: a header value it cannot carry. The config checks the
      // key and address before any request (src/config/header-value.ts); this is the net below.
      return new ServiceError(
        redact(
          `promptlock could not send the request to ${where} while ${target.what}: ${serviceText(failure.message, 200)} (${failure.code}).`,
          [ctx.apiKey],
        ),
        {
          code: 'refused',
          cause: failure,
          hint: 'Check the API key and baseUrl for characters that cannot be sent in a request (a pasted "…" or an invisible character), then run again.',
        },
      );
    default:
      return new ServiceError(`The connection to ${where} was cut while ${target.what} (${failure.code}, ${tries}).`, {
        code: 'network',
        cause: failure,
        hint: 'The service or the network is unstable; try again later.',
      });
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The address answers, but not as a prompt service does (an HTML page, no list endpoint and no
 * health endpoint): the base URL is wrong, not the prompt names. `evidence` follows the URL:
 * ` (answered 501, text/html)` or `: GET /v1/prompts answered 404, …`.
 */
export function notAServiceError(evidence: string, ctx: ErrorContext): ServiceError {
  return new ServiceError(redact(`${ctx.baseUrl} is not a prompt service${evidence}.`, [ctx.apiKey]), {
    code: 'not_a_service',
    hint: 'Check baseUrl (or PROMPTLOCK_BASE_URL): it is the address of the service without /v1, e.g. https://api.baytos.ai, or the URL `promptlock serve` prints.',
  });
}

/** An answer larger than the limit that applies to it, cut off there. */
export function tooLargeError(maxBytes: number, sizeLimit: string, target: RequestTarget, ctx: ErrorContext): ServiceError {
  return new ServiceError(
    redact(
      `The answer to ${target.method} ${target.endpoint} while ${target.what} is larger than ${maxBytes} bytes, ${sizeLimit}; stopped reading there.`,
      [ctx.apiKey],
    ),
    { code: 'too_large', hint: 'Raise the limit in the config if the service is trusted and the answer is expected to be this large.' },
  );
}

/** How an error names a configured limit: `the limit 1000 (option "limits.listPages" in the config; default 1000)`. */
export function limitText(name: LimitName, limits: Readonly<Limits>): string {
  return `the limit ${describeLimit(name, limits)}`;
}

/** Text the service sent, fit to print inside a message: one line (src/terminal-text.ts), cut at `max` characters. */
export function serviceText(text: string | undefined, max: number): string | undefined {
  if (text === undefined) return undefined;
  const clean = oneLine(text);
  return clean.length > max ? `${clean.slice(0, max)}… (cut at ${max} characters)` : clean;
}

/** A 2xx whose body is not JSON or not the expected shape. */
export function invalidBodyError(problem: string, target: RequestTarget, ctx: ErrorContext, attempts: number): ServiceError {
  const subject = target.packageName ? ` for ${target.packageName}` : '';
  return new ServiceError(
    redact(`The service answered ${target.method} ${target.endpoint}${subject} with an invalid body: ${serviceText(problem, 500)}.`, [
      ctx.apiKey,
    ]),
    {
      code: 'invalid_response',
      hint: `Gave up after ${pluralise(attempts, 'attempt')}. Check that baseUrl points at the prompt service.`,
    },
  );
}

/**
 * A redirect promptlock does not follow: anything but a 307 or 308 to the same origin
 * (docs/service-interface.md, "Answers on the wire"). Names the target, and the base URL to set
 * when the target is the same endpoint under another address.
 */
export function redirectError(
  status: number,
  location: URL | undefined,
  why: string,
  target: RequestTarget,
  ctx: ErrorContext,
): ServiceError {
  const subject = target.fileHost ? `The file host ${target.fileHost}` : `The service at ${ctx.baseUrl}`;
  if (!location) {
    return new ServiceError(`${subject} answered ${status} (a redirect) without a Location while ${target.what}.`, {
      status,
      code: 'redirect',
      hint: target.fileHost
        ? 'This is a fault of the file host; try again later.'
        : 'Check baseUrl (or PROMPTLOCK_BASE_URL): it is the address of the service.',
    });
  }
  // The query may carry a credential (a pre-signed address): never shown.
  const shown = serviceText(`${location.origin}${location.pathname}`, 200);
  // The same endpoint under another address: that address is the base URL to set.
  let moved =
    !target.fileHost && location.pathname.endsWith(target.endpoint)
      ? serviceText(`${location.origin}${location.pathname.slice(0, -target.endpoint.length)}`, 200)
      : undefined;
  // Back to the same address (a loop): it did not move.
  if (moved === ctx.baseUrl) moved = undefined;
  const message =
    moved !== undefined
      ? `The service moved to ${moved}: ${ctx.baseUrl} answered ${status} redirecting ${target.method} ${target.endpoint} to ${shown} (${why}).`
      : `${subject} answered ${status} redirecting ${target.method} ${target.endpoint} to ${shown} (${why}) while ${target.what}.`;
  const hint =
    moved !== undefined
      ? `Set baseUrl (or PROMPTLOCK_BASE_URL) to ${moved} if you trust that address: promptlock sends the API key only to the base URL's origin, and follows only a 307 or 308 within it.`
      : target.fileHost
        ? 'For a context file promptlock follows only a 307 or 308 on the same host; report it to the service.'
        : 'promptlock follows only a 307 or 308 to the same origin; check baseUrl (or PROMPTLOCK_BASE_URL).';
  return new ServiceError(redact(message, [ctx.apiKey]), { status, code: 'redirect', hint: redact(hint, [ctx.apiKey]) });
}
