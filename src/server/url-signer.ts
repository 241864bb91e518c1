/**
 * Pre-signed context-file URLs, like a storage service's: an HMAC of the context id and the expiry
 * time under a secret made at start, so the file can be fetched without the API key until it
 * expires, and the URL cannot be altered to reach another file.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

type SignatureCheck = 'valid' | 'expired' | 'invalid';

export interface UrlSigner {
  /** Path and query of a download URL for `contextId`, valid for the configured lifetime. */
  sign(contextId: string, now?: number): string;
  check(contextId: string, expires: string | null, signature: string | null, now?: number): SignatureCheck;
  readonly ttlSeconds: number;
}

export const FILE_ROUTE_PREFIX = '/files/';

export function createUrlSigner(ttlSeconds: number): UrlSigner {
  const secret = randomBytes(32);
  const mac = (contextId: string, expires: string) => createHmac('sha256', secret).update(`${contextId}\n${expires}`).digest('base64url');
  return {
    ttlSeconds,
    sign(contextId, now = Date.now()) {
      const expires = String(Math.floor(now / 1000) + ttlSeconds);
      return `${FILE_ROUTE_PREFIX}${encodeURIComponent(contextId)}?expires=${expires}&signature=${mac(contextId, expires)}`;
    },
    check(contextId, expires, signature, now = Date.now()) {
      if (!expires || !/^\d{1,12}$/.test(expires) || !signature) return 'invalid';
      const want = Buffer.from(mac(contextId, expires));
      const got = Buffer.from(signature);
      if (want.length !== got.length || !timingSafeEqual(want, got)) return 'invalid';
      return Number(expires) * 1000 <= now ? 'expired' : 'valid';
    },
  };
}
