import type { Dispatcher } from 'undici';

export interface AttemptRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Longest body accepted; a longer one is cut off and reported. */
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
  /** Empty when the body went to the request's sink. */
  body: Buffer;
  /** Bytes of the body, wherever they went. */
  size: number;
}

/** Why an attempt got no complete answer. All kinds but `too-large` and `sink` (a local failure: a full disk) are worth retrying. */
export type AttemptFailureKind = 'timeout' | 'reset' | 'network' | 'too-large' | 'sink';

export class AttemptFailure extends Error {
  constructor(
    readonly kind: AttemptFailureKind,
    /** `ECONNREFUSED`, `ECONNRESET`, `UND_ERR_SOCKET`…; for `sink`, the sink's own error is the cause. */
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(`${kind}: ${code}`, options);
  }
}

/** Connection errors that say the service is not there at all (as opposed to cut off). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * One request with one deadline over headers and body together (undici's own timeouts are per
 * inactivity, which a slow trickle never trips). Never throws anything but AttemptFailure.
 */
export async function httpAttempt(dispatcher: Dispatcher, origin: string | undefined, request: AttemptRequest): Promise<AttemptAnswer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), request.timeoutMs);
  try {
    const response = await dispatcher.request({
      origin,
      method: request.method,
      path: request.path,
      headers: request.headers,
      body: request.body ?? null,
      signal: controller.signal,
    });
    const chunks: Buffer[] = [];
    const sink = response.statusCode >= 200 && response.statusCode < 300 ? request.sink : undefined;
    // A local failure (a full disk) is no network fault: not retried, reported as it is.
    const toSink = async (action: () => Promise<void>) => {
      try {
        await action();
      } catch (error) {
        response.body.destroy();
        throw new AttemptFailure('sink', 'sink', { cause: error });
      }
    };
    if (sink) await toSink(() => sink.reset());
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > request.maxBytes) {
        response.body.destroy();
        throw new AttemptFailure('too-large', `more than ${request.maxBytes} bytes`);
      }
      if (sink) await toSink(() => sink.write(chunk as Buffer));
      else chunks.push(chunk as Buffer);
    }
    return { status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks), size };
  } catch (error) {
    if (error instanceof AttemptFailure) throw error;
    if (controller.signal.aborted) throw new AttemptFailure('timeout', 'ETIMEDOUT', { cause: error });
    const code = errorCode(error);
    throw new AttemptFailure(UNREACHABLE.has(code) ? 'network' : 'reset', code, { cause: error });
  } finally {
    clearTimeout(timer);
  }
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
