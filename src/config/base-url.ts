import { BlockList, isIP } from 'node:net';
import { ConfigError } from '../errors.js';
import { maskKey } from '../secrets.js';
import { firstUnsendable } from './sendable.js';

/** The service's public address; `PROMPTLOCK_BASE_URL` or the `baseUrl` option replaces it. */
export const DEFAULT_BASE_URL = 'https://api.baytos.ai';

/** What `baseUrl` may be, in the words error messages use. */
export const BASE_URL_ALLOWED = 'an https:// URL (http:// only for loopback hosts: 127.0.0.0/8, ::1, localhost)';

/**
 * True for hosts whose traffic never leaves the machine, so a key sent over plain http cannot be
 * read on the way: a literal loopback address (127.0.0.0/8, ::1, also IPv4-mapped) or `localhost`.
 * Any other name, `*.localhost` included, goes to DNS and may resolve anywhere.
 */
export function isLoopbackHost(hostname: string): boolean {
  return hostname.toLowerCase() === 'localhost' || isLiteralLoopback(hostname);
}

/** A loopback address written out (`127.0.0.1`, `[::1]`), no name to resolve. */
export function isLiteralLoopback(hostname: string): boolean {
  const host = bare(hostname);
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * True for a literal address inside a private, link-local, shared or unspecified range
 * (169.254.169.254, 10/8, 172.16/12, 192.168/16, 100.64/10, 0/8, fc00::/7, fe80::/10, ::, and
 * their IPv4-mapped forms): a download address the service gives may not point into the
 * network promptlock runs in (docs/security.md).
 */
export function isPrivateAddress(hostname: string): boolean {
  const host = bare(hostname);
  const family = isIP(host);
  return family !== 0 && PRIVATE.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

function bare(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

/**
 * Why `text` is not an acceptable service address, or undefined when it is. Kept apart from
 * the config schema because the client refuses the same addresses when built directly.
 */
export function baseUrlProblem(text: string): string | undefined {
  // The URL parser would drop or percent-encode it silently, sending every request to a wrong path.
  // Leading and trailing spaces and controls are dropped by the URL parser itself, harmlessly.
  const bad = firstUnsendable(text.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, ''));
  if (bad) {
    return `character ${bad.position} of ${bad.length} is ${bad.described}, which is not part of an address as it is sent (write a non-ASCII host name in its xn-- form)`;
  }
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
  // Every endpoint is `/v1/…` below the base URL (docs/service-interface.md): a base URL ending in
  // it would call `/v1/v1/…`, and the 404 would hide why.
  if (/\/v1\/*$/i.test(url.pathname)) {
    return `it ends in /v1, which promptlock adds to every path itself: use ${url.origin}${url.pathname.replace(/\/v1\/*$/i, '')}`;
  }
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
