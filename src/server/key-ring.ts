/**
 * Checks bearer keys. Every configured key is compared (by its SHA-256, with `timingSafeEqual`)
 * on every request, without stopping at a match, so response time says nothing about how much
 * of a guess was right. The key is never kept in a message, a log line or a rate-limit bucket name.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export type Caller =
  | { kind: 'missing' }
  | { kind: 'invalid' }
  /** `index` names the key without revealing it; `workspace` undefined reads every workspace. */
  | { kind: 'valid'; index: number; workspace: string | undefined };

export interface KeyRing {
  identify(authorization: string | undefined): Caller;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

export function createKeyRing(keys: ReadonlyArray<{ key: string; workspace: string | undefined }>): KeyRing {
  const digests = keys.map(({ key, workspace }) => ({ digest: sha256(key), workspace }));
  return {
    identify(authorization) {
      if (authorization === undefined || authorization.trim() === '') return { kind: 'missing' };
      const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization);
      const presented = sha256(match ? match[1]! : '');
      let found = -1;
      digests.forEach(({ digest }, index) => {
        if (timingSafeEqual(digest, presented) && found === -1 && match) found = index;
      });
      if (found === -1) return { kind: 'invalid' };
      return { kind: 'valid', index: found, workspace: digests[found]!.workspace };
    },
  };
}
