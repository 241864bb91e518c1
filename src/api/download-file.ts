import { ServiceError } from '../errors.js';
import { InvalidBody, type ServiceTransport } from './service-transport.js';

export interface DownloadOptions {
  /** Largest file accepted. */
  maxBytes: number;
  /** The size the prompt's context item announces; a different size is retried, then an error. */
  expectedSize?: number;
}

/**
 * Fetches a context file from its pre-signed address, without the API key: the address carries
 * its own authorisation, and the key must not travel to a storage host.
 */
export async function downloadFile(transport: ServiceTransport, url: string, options: DownloadOptions): Promise<Uint8Array> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ServiceError(`The service gave an invalid download address for a context file: ${JSON.stringify(url.slice(0, 100))}.`, {
      code: 'invalid_response',
    });
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new ServiceError(`The service gave a ${parsed.protocol} download address for a context file; only http(s) is fetched.`, {
      code: 'invalid_response',
    });
  }
  // The query is the pre-signed credential: keep it out of messages.
  const shown = `${parsed.origin}${parsed.pathname}`;
  return transport.download(
    {
      method: 'GET',
      path: `${parsed.pathname}${parsed.search}`,
      target: { method: 'GET', endpoint: shown, what: `downloading ${shown}`, notFound: `The context file at ${shown} was not found (404); its address may have expired.` },
      maxBytes: options.maxBytes,
      interpret: (answer) => {
        if (options.expectedSize !== undefined && answer.body.length !== options.expectedSize) {
          throw new InvalidBody(`the file has ${answer.body.length} bytes, the prompt says ${options.expectedSize}`);
        }
        return new Uint8Array(answer.body.buffer, answer.body.byteOffset, answer.body.length);
      },
    },
    parsed.origin,
  );
}
