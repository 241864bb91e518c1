import { isLoopbackHost, isPrivateAddress } from '../config/base-url.js';
import { ServiceError } from '../errors.js';
import type { Limits } from '../limits.js';
import type { AttemptAnswer, BodySink } from './http-attempt.js';
import { limitText, serviceText } from './service-errors.js';
import { InvalidBody, type ServiceTransport } from './service-transport.js';

export type { BodySink } from './http-attempt.js';

export interface DownloadOptions {
  /** Largest file accepted; `limits.contextFileBytes` applies when it is lower. */
  maxBytes: number;
  /** The size the prompt's context item announces; a different size is retried, then an error. */
  expectedSize?: number;
}

/** Where downloads are checked against: the client's base URL and limits. */
export interface DownloadScope {
  baseUrl: string;
  limits: Readonly<Limits>;
}

/**
 * Fetches a context file from its pre-signed address, without the API key: the address carries
 * its own authorisation, and the key must not travel to a storage host. The address is the
 * service's word, so it is held to the rule of `baseUrl` (https, or plain http only to a
 * loopback host), never to a literal private or link-local address, and to this machine only
 * when the service itself is on it (a loopback base URL), before anything connects; and the file
 * to `limits.contextFileBytes` however large the service says it is (docs/security.md).
 */
export async function downloadFile(
  transport: ServiceTransport,
  url: string,
  options: DownloadOptions,
  scope: DownloadScope,
): Promise<Uint8Array> {
  return download(
    transport,
    url,
    options,
    scope,
    undefined,
    (answer) => new Uint8Array(answer.body.buffer, answer.body.byteOffset, answer.body.length),
  );
}

/**
 * The same download, its body handed to `sink` chunk by chunk as it arrives (a file being staged)
 * instead of held in memory; `sink.reset` starts each attempt afresh. Resolves to the size.
 */
export async function downloadFileTo(
  transport: ServiceTransport,
  url: string,
  options: DownloadOptions,
  scope: DownloadScope,
  sink: BodySink,
): Promise<number> {
  return download(transport, url, options, scope, sink, (answer) => answer.size);
}

async function download<T>(
  transport: ServiceTransport,
  url: string,
  options: DownloadOptions,
  { baseUrl, limits }: DownloadScope,
  sink: BodySink | undefined,
  result: (answer: AttemptAnswer) => T,
): Promise<T> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ServiceError(`The service gave an invalid download address for a context file: ${JSON.stringify(serviceText(url, 100))}.`, {
      code: 'invalid_response',
    });
  }
  // The query is the pre-signed credential: keep it out of messages.
  const shown = serviceText(`${parsed.origin}${parsed.pathname}`, 200)!;
  const refuse = (why: string) =>
    new ServiceError(`The service gave the download address ${shown} for a context file: ${why}. Nothing was fetched.`, {
      code: 'invalid_response',
      hint: 'Context files are fetched over https from a public host, or from this machine (plain http allowed) only when the service itself runs on it.',
    });
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw refuse(`${parsed.protocol} addresses are not fetched`);
  // A remote service must not make promptlock call this machine's own ports (docs/security.md).
  if (isLoopbackHost(parsed.hostname) && !isLoopbackHost(new URL(baseUrl).hostname))
    throw refuse(`${parsed.hostname} is this machine, and the service at ${baseUrl} is not on it`);
  if (parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname))
    throw refuse(`plain http:// is fetched only from a loopback host, not ${parsed.hostname}`);
  if (parsed.username || parsed.password) throw refuse('credentials in the address are not accepted');
  if (isPrivateAddress(parsed.hostname)) throw refuse(`${parsed.hostname} is a private or link-local address, not fetched`);

  const cap = limits.contextFileBytes;
  if (options.expectedSize !== undefined && options.expectedSize > cap) {
    throw new ServiceError(
      `The context file at ${shown} is announced as ${options.expectedSize} bytes, more than ${limitText('contextFileBytes', limits)}. Nothing was fetched.`,
      { code: 'too_large', hint: 'Raise the limit in the config if the service is trusted and the file is expected to be this large.' },
    );
  }
  const fromAnnounced = options.expectedSize !== undefined && options.expectedSize <= Math.min(cap, options.maxBytes);
  const maxBytes = fromAnnounced ? options.expectedSize! : Math.min(cap, options.maxBytes);
  const sizeLimit = fromAnnounced
    ? 'the size the prompt announces for this file'
    : maxBytes === cap
      ? limitText('contextFileBytes', limits)
      : 'the size the caller allows for this file';
  return transport.download(
    {
      method: 'GET',
      path: `${parsed.pathname}${parsed.search}`,
      target: {
        method: 'GET',
        endpoint: shown,
        what: `downloading ${shown}`,
        fileHost: parsed.origin,
        notFound: `The context file at ${shown} was not found (404); its address may have expired.`,
        notFoundHint: 'The file may have been deleted on the service since its address was given.',
      },
      maxBytes,
      sizeLimit,
      ...(sink ? { sink } : {}),
      interpret: (answer) => {
        if (options.expectedSize !== undefined && answer.size !== options.expectedSize) {
          throw new InvalidBody(`the file has ${answer.size} bytes, the prompt says ${options.expectedSize}`);
        }
        return result(answer);
      },
    },
    parsed.origin,
  );
}
