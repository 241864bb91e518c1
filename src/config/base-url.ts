import { isIP } from 'node:net';
import { ConfigError } from '../errors.js';
import { maskKey } from '../secrets.js';

/** The service's public address; `PROMPTLOCK_BASE_URL` or the `baseUrl` option replaces it. */
export const DEFAULT_BASE_URL = 'https://api.baytos.ai';

/** What `baseUrl` may be, in the words error messages use. */
export const BASE_URL_ALLOWED = 'an https:// URL (http:// only for loopback hosts: 127.0.0.0/8, ::1, localhost)';

/**
 * True for hosts whose traffic never leaves the machine, so a key sent over plain http cannot be
 * read on the way: 127.0.0.0/8, ::1 (also IPv4-mapped), `localhost` and `*.localhost`.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || /^::ffff:127\./.test(host) || host === '0:0:0:0:0:0:0:1';
  return false;
}

/**
 * Why `text` is not an acceptable service address, or undefined when it is. Kept apart from
 * the config schema because the client refuses the same addresses when built directly.
 */
export function baseUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `unsupported protocol ${url.protocol}`;
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return `plain http:// would send the API key unencrypted to ${url.hostname}`;
  }
  if (url.search || url.hash) return 'a query or fragment is not allowed';
  if (url.username || url.password) return 'credentials in the URL are not allowed';
  return undefined;
}

/**
 * Throws the one error every client (the CLI's and `promptlock/live`) gives for an address it
 * will not call; `from` says where the address came from. The key is named only masked.
 */
export function refuseBadBaseUrl(baseUrl: string, apiKey: string | undefined, from?: string): void {
  const problem = baseUrlProblem(baseUrl);
  if (!problem) return;
  const key = apiKey ? ` (key ${maskKey(apiKey)})` : '';
  throw new ConfigError(`Refusing the prompt service address ${JSON.stringify(baseUrl)}${from ? ` from ${from}` : ''}${key}: ${problem}.`, {
    hint: 'Use https://, or http:// only to a loopback address (127.0.0.1, ::1, localhost).',
  });
}
