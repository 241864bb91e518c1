import { pipeline, type Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import type { Dispatcher } from 'undici';

export interface AttemptRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Longest body accepted (decoded); a longer one is cut off and reported. */
  maxBytes: number;
  /** Where a 2xx body goes, chunk by chunk as it arrives, instead of into memory (downloads). */
  sink?: BodySink | undefined;
}

/** Receives a 2xx body as it arrives: `reset` before each attempt's first chunk. */
export interface BodySink {
  reset(): Promise<void>;
  write(chunk: Uint8Array): Promise<void>;
}

export interface AttemptAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Empty when the body went to the request's sink. Decoded from its `Content-Encoding`. */
  body: Buffer;
  /** Bytes of the (decoded) body, wherever they went. */
  size: number;
}

/**
 * Why an attempt got no complete answer. `timeout`, `reset` and `network` are worth retrying;
 * `too-large`, `sink` (a local failure: a full disk), `encoding` (a body that is not what its
 * `Content-Encoding` says) and `refused` (a request the HTTP client will not send) are not.
 */
export type AttemptFailureKind = 'timeout' | 'reset' | 'network' | 'too-large' | 'sink' | 'encoding' | 'refused';

export class AttemptFailure extends Error {
  constructor(
    readonly kind: AttemptFailureKind,
    /** `ECONNREFUSED`, `ECONNRESET`, `UND_ERR_SOCKET`…; for `sink`, the sink's own error is the cause. */
    readonly code: string,
    options?: { cause?: unknown; detail?: string },
  ) {
    super(options?.detail ?? `${kind}: ${code}`, options);
  }
}

/** Connection errors that say the service is not there at all (as opposed to cut off). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * The HTTP client's own refusals of a request before it is sent (a header value outside
 * Latin-1, an invalid path): sending it again cannot change them.
 */
const REFUSED = new Set(['UND_ERR_INVALID_ARG', 'ERR_INVALID_CHAR', 'ERR_INVALID_ARG_VALUE', 'ERR_INVALID_URL']);

/**
 * Decoders for `Content-Encoding` (docs/service-interface.md, "Answers on the wire"). undici's
 * `request()` hands the body over as sent, and its `interceptors.decompress` prints an
 * ExperimentalWarning in every process that uses it, so Node's zlib decodes here.
 */
const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflateAny,
  br: createBrotliDecompress,
};
/** The least of an error answer read, whatever the size limit of what was asked for. */
const ERROR_BODY_BYTES = 64 * 1024;
/** As many encodings as anyone stacks; more is a decompression bomb's shape (undici allows 5). */
const MAX_ENCODINGS = 3;

/**
 * One request with one deadline over connection, headers and body together (undici's own
 * timeouts are per inactivity, which a slow trickle never trips). The deadline does not depend on
 * the HTTP client obeying the abort: a request undici holds in a pool's queue never sees its
 * signal (the abort reaches a request only once it is on a connection), so the attempt is
 * settled by the timer itself, whatever undici does. Never throws anything but AttemptFailure.
 */
export async function httpAttempt(dispatcher: Dispatcher, origin: string | undefined, request: AttemptRequest): Promise<AttemptAnswer> {
  const controller = new AbortController();
  // The sink operation under way, if any: a timed-out attempt ends only once it has, so the
  // next attempt's `reset` never runs beside a write of this one.
  let sinking: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      const failure = new AttemptFailure('timeout', 'ETIMEDOUT');
      void Promise.resolve(sinking)
        .catch(() => undefined)
        .then(() => reject(failure));
    }, request.timeoutMs);
  });
  try {
    return await Promise.race([exchange(dispatcher, origin, request, controller.signal, (op) => (sinking = op)), deadline]);
  } catch (error) {
    if (error instanceof AttemptFailure) throw error;
    if (controller.signal.aborted) throw new AttemptFailure('timeout', 'ETIMEDOUT', { cause: error });
    const code = errorCode(error);
    const kind = REFUSED.has(code) ? 'refused' : UNREACHABLE.has(code) ? 'network' : 'reset';
    throw new AttemptFailure(kind, code, { cause: error, detail: (error as Error)?.message });
  } finally {
    clearTimeout(timer);
  }
}

async function exchange(
  dispatcher: Dispatcher,
  origin: string | undefined,
  request: AttemptRequest,
  signal: AbortSignal,
  track: (op: Promise<void>) => void,
): Promise<AttemptAnswer> {
  const response = await dispatcher.request({
    origin,
    method: request.method,
    path: request.path,
    headers: request.headers,
    body: request.body ?? null,
    signal,
  });
  const chunks: Buffer[] = [];
  const sink = response.statusCode >= 200 && response.statusCode < 300 ? request.sink : undefined;
  const body = decoded(response.body, response.headers['content-encoding']);
  // A local failure (a full disk) is no network fault: not retried, reported as it is.
  const toSink = async (action: () => Promise<void>) => {
    if (signal.aborted) throw new AttemptFailure('timeout', 'ETIMEDOUT');
    const op = action();
    track(op);
    try {
      await op;
    } catch (error) {
      body.destroy();
      throw new AttemptFailure('sink', 'sink', { cause: error });
    }
  };
  if (sink) await toSink(() => sink.reset());
  const ok = response.statusCode >= 200 && response.statusCode < 300;
  // An error answer is read for its code and message only, never failed for its size: up to the
  // limit of the answer asked for, and at least ERROR_BODY_BYTES (a 404 page is no file of the
  // announced size).
  const errorCap = Math.max(request.maxBytes, ERROR_BODY_BYTES);
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (!ok && size > errorCap) {
        chunks.push((chunk as Buffer).subarray(0, (chunk as Buffer).length - (size - errorCap)));
        body.on('error', () => {}).destroy();
        size = errorCap;
        break;
      }
      if (ok && size > request.maxBytes) {
        body.destroy();
        throw new AttemptFailure('too-large', `more than ${request.maxBytes} bytes`);
      }
      if (sink) await toSink(() => sink.write(chunk as Buffer));
      else chunks.push(chunk as Buffer);
    }
  } catch (error) {
    const code = (error as { code?: unknown })?.code;
    // zlib's verdict on bytes that are not what the header says ("incorrect header check"); a body
    // cut short mid-stream (Z_BUF_ERROR) is a reset like any other and is retried.
    if (typeof code === 'string' && code.startsWith('Z_') && code !== 'Z_BUF_ERROR' && !signal.aborted) {
      throw new AttemptFailure('encoding', code, { cause: error, detail: (error as Error).message });
    }
    throw error;
  }
  return {
    status: response.statusCode,
    headers: stripEncoding(response.headers, body !== response.body),
    body: Buffer.concat(chunks),
    size,
  };
}

/**
 * The body decoded from its `Content-Encoding` (gzip, deflate, br, stacked in the order applied),
 * the body itself for none or `identity`. An encoding promptlock cannot decode is refused
 * (AttemptFailure `encoding`) rather than read as JSON.
 */
function decoded(body: Readable, header: string | string[] | undefined): Readable {
  const codings = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return body;
  const unknown = codings.find((coding) => !(coding in DECODERS));
  if (unknown !== undefined || codings.length > MAX_ENCODINGS) {
    // undici's body reports a destroy before its end as an error: nobody is listening for it here.
    body.on('error', () => {}).destroy();
    const detail =
      unknown !== undefined
        ? `Content-Encoding "${unknown.slice(0, 40)}", which promptlock cannot decode (it reads gzip, deflate and br)`
        : `${codings.length} stacked Content-Encodings, more than ${MAX_ENCODINGS}`;
    throw new AttemptFailure('encoding', 'unsupported', { detail });
  }
  const stages = codings.reverse().map((coding) => DECODERS[coding]!());
  // pipeline destroys every stage when one fails, so the socket is released either way.
  return pipeline([body, ...stages], () => {}) as unknown as Readable;
}

/**
 * `deflate` as sent: RFC 9110 says zlib-wrapped, some servers send it raw; the first byte tells
 * them apart (as browsers do). An empty body stays empty (a redirect, an error without a body).
 */
function createInflateAny(): Transform {
  let inner: Transform | undefined;
  const out: Transform = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (!inner) {
        inner = (chunk[0]! & 0x0f) === 8 ? createInflate() : createInflateRaw();
        inner.on('data', (data: Buffer) => out.push(data));
        inner.on('error', (error) => out.destroy(error));
      }
      if (inner.write(chunk)) done();
      else inner.once('drain', () => done());
    },
    flush(done) {
      if (!inner) return done();
      inner.once('end', () => done());
      inner.end();
    },
    destroy(error, done) {
      inner?.destroy();
      done(error);
    },
  });
  return out;
}

/** The headers as the decoded body has them: no encoding, no length of the encoded bytes. */
function stripEncoding(headers: AttemptAnswer['headers'], wasDecoded: boolean): AttemptAnswer['headers'] {
  if (!wasDecoded) return headers;
  const { 'content-encoding': _encoding, 'content-length': _length, ...rest } = headers;
  return rest;
}

function errorCode(error: unknown): string {
  let current: unknown = error;
  // undici wraps the socket error; the useful code is often on the cause.
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
    current = (current as { cause?: unknown }).cause;
  }
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? code : ((error as Error)?.name ?? 'unknown error');
}
