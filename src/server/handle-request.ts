/**
 * One request through the service, in the order a hosted API applies its checks: injected fault,
 * rate limit (every request counts, by key or else by address), route, method, key, body size,
 * then the route itself. The body is read only once the key is checked, so callers without a
 * valid key cannot make the service hold their uploads in memory. Every response carries the
 * `X-RateLimit-*` headers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { redact } from '../secrets.js';
import { terminalText } from '../terminal-text.js';
import { ApiError, echo, errorBody } from './api-error.js';
import type { FaultInjector } from './fault-injector.js';
import type { FolderSource } from './folder-source.js';
import type { KeyRing } from './key-ring.js';
import type { RateDecision, RateLimiter } from './rate-limiter.js';
import { readBody } from './read-body.js';
import type { Reply } from './route-context.js';
import { isApiPath, matchRoute } from './routes.js';
import type { ResolvedServerOptions, ServerStats } from './server-options.js';
import type { UrlSigner } from './url-signer.js';

export interface ServerState {
  options: ResolvedServerOptions;
  source: FolderSource;
  keyRing: KeyRing;
  limiter: RateLimiter;
  signer: UrlSigner;
  faults: FaultInjector | undefined;
  stats: ServerStats;
  /** Set once the server listens. */
  baseUrl: string;
}

const bump = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1;
};

function rateHeaders(decision: RateDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(Math.ceil(decision.resetAt / 1000)),
  };
}

/**
 * The name a request is addressed to (its `Host` header without the port), when it is not one this
 * service answers to: loopback names, IP addresses (a page on another origin cannot make a browser
 * send its own name with them) and the allowed names. DNS rebinding re-points a name of the
 * attacker's at 127.0.0.1, and the browser then sends that name (docs/security.md, "serve").
 */
function foreignHost(header: string | undefined, allowed: ReadonlySet<string>): string | undefined {
  // HTTP/1.0 has no Host header; no browser sends such a request.
  if (header === undefined) return undefined;
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(header);
  const name = (bracketed ? bracketed[1]! : header.replace(/:\d*$/, '')).toLowerCase().replace(/\.$/, '');
  if (isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost') || allowed.has(name)) return undefined;
  return name;
}

/** The request announces a body (a length above 0, or chunks). */
function hasBody(req: IncomingMessage): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

function unauthorized(kind: 'missing' | 'invalid'): ApiError {
  return kind === 'missing'
    ? new ApiError(401, 'unauthorized', 'Missing API key: send the header "Authorization: Bearer <API key>".')
    : new ApiError(401, 'unauthorized', 'Invalid API key: check the key, or create a new one.');
}

function send(res: ServerResponse, reply: Reply, headers: Record<string, string>, state: ServerState, truncate: boolean): void {
  let payload: Buffer;
  let contentType: string;
  if ('json' in reply) {
    const wrap = state.options.envelope === 'wrapped' && reply.status >= 200 && reply.status < 300;
    payload = Buffer.from(JSON.stringify(wrap ? { data: reply.json } : reply.json));
    contentType = 'application/json; charset=utf-8';
  } else {
    payload = reply.bytes;
    contentType = reply.contentType;
    Object.assign(headers, reply.headers);
  }
  res.writeHead(reply.status, {
    ...headers,
    'Content-Type': contentType,
    'Content-Length': String(payload.length),
    'Cache-Control': 'no-store',
  });
  if (!truncate) {
    res.end(payload);
    return;
  }
  // Promise the whole body, deliver half, then cut the connection: what a dying upstream looks like.
  res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => res.socket?.destroy());
}

export function createRequestHandler(state: ServerState): (req: IncomingMessage, res: ServerResponse) => void {
  const { options, stats } = state;
  const secrets = options.keys.map((k) => k.key);
  return (req, res) => {
    const started = Date.now();
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
    const route = matchRoute(pathname);
    const method = req.method ?? 'GET';
    stats.requests++;
    bump(stats.byRoute, route?.name ?? 'other');
    const finish = (status: string) => {
      bump(stats.byStatus, status);
      options.log?.(
        terminalText(
          redact(`${req.socket.remoteAddress ?? '-'} ${echo(method, 20)} ${echo(pathname)} ${status} ${Date.now() - started}ms`, secrets),
        ),
      );
    };

    void (async () => {
      const fault = state.faults && isApiPath(pathname) ? state.faults.next() : undefined;
      if (fault === 'reset') {
        req.socket.destroy();
        finish('reset');
        return;
      }
      if (options.latencyMs > 0) await delay(options.latencyMs);

      const caller = state.keyRing.identify(req.headers.authorization);
      const tier = caller.kind === 'valid' ? options.rateLimits.authenticated : options.rateLimits.unauthenticated;
      const bucket = caller.kind === 'valid' ? `key:${caller.index}` : `ip:${req.socket.remoteAddress ?? '-'}`;
      // Signed file downloads stand for a storage host: reported, not counted.
      const decision = route?.name === 'file' ? state.limiter.peek(bucket, tier) : state.limiter.take(bucket, tier);
      const headers = rateHeaders(decision);
      let reply: Reply;
      let bodyRead = false;
      try {
        const foreign = foreignHost(req.headers.host, options.allowedHosts);
        if (foreign !== undefined) {
          throw new ApiError(
            403,
            'forbidden',
            `Host "${echo(foreign, 100)}" is not a name of this service: it answers to localhost, IP addresses and the names given by --allowed-host (a page on another site may have pointed that name here).`,
          );
        }
        if (fault === '503') throw new ApiError(503, 'internal_error', 'Service temporarily unavailable (injected fault); retry shortly.');
        if (!decision.allowed) {
          const retryAfter = Math.max(1, Math.ceil((decision.resetAt - Date.now()) / 1000));
          headers['Retry-After'] = String(retryAfter);
          const tierName = caller.kind === 'valid' ? 'authenticated' : 'unauthenticated';
          const error = new ApiError(
            429,
            'rate_limit_exceeded',
            `Rate limit exceeded: ${decision.limit} requests per ${decision.window} for ${tierName} callers; retry after ${retryAfter} s.`,
            { limit: decision.limit, window: decision.window },
          );
          reply = { status: 429, json: errorBody(error, options.errors, retryAfter) };
        } else {
          if (!route) throw new ApiError(404, 'not_found', `No endpoint ${echo(method, 20)} ${echo(pathname)}.`);
          if (!route.methods.includes(method)) {
            throw new ApiError(
              405,
              'method_not_allowed',
              `${echo(method, 20)} is not allowed on ${echo(pathname)}; use ${route.methods.join(' or ')}.`,
              {
                allow: route.methods,
              },
              { Allow: route.methods.join(', ') },
            );
          }
          if (route.needsKey && caller.kind !== 'valid') throw unauthorized(caller.kind);
          // Only now, past the key: an unauthenticated caller never gets a body buffered.
          const body = await readBody(req, options.maxBodyBytes);
          bodyRead = true;
          if (body.tooLarge) {
            throw new ApiError(413, 'payload_too_large', `Request body is larger than ${options.maxBodyBytes} bytes.`, {
              maxBytes: options.maxBodyBytes,
            });
          }
          const queryText = queryAt === -1 ? '' : url.slice(queryAt + 1);
          reply = await route.handle({
            caller,
            pathname,
            query: new URLSearchParams(queryText),
            body: body.bytes,
            catalog: state.source.catalog,
            signer: state.signer,
            baseUrl: state.baseUrl,
            listNames: options.listNames,
          });
        }
      } catch (error) {
        let apiError: ApiError;
        if (error instanceof ApiError) apiError = error;
        else {
          apiError = new ApiError(500, 'internal_error', 'Internal error of the local service; see its log.');
          options.log?.(
            terminalText(redact(`error: ${echo(method, 20)} ${echo(pathname)}: ${(error as Error)?.stack ?? String(error)}`, secrets)),
          );
        }
        Object.assign(headers, apiError.headers);
        reply = { status: apiError.status, json: errorBody(apiError, options.errors) };
      }
      if (res.destroyed) return;
      // A body left unread is not waited for: the answer closes the connection (Node drops the rest).
      if (!bodyRead && hasBody(req)) headers.Connection = 'close';
      send(res, reply, headers, state, fault === 'truncate');
      finish(fault === 'truncate' ? 'truncate' : String(reply.status));
    })().catch(() => {
      // The client went away mid-request; there is no one to answer.
      if (!res.headersSent) res.destroy();
    });
  };
}
