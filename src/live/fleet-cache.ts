/**
 * The fleet cache as one instance sees it (docs/live.md, "What the fleet cache trusts"). Entries
 * are keyed by a digest of the service address and the key's identity, so apps of different
 * services (production, staging) or keys on one Redis never read each other's entries; and each
 * entry carries an HMAC keyed by a secret derived from the API key, so an entry that this
 * instance's own service did not answer (written by hand, or by anyone with Redis access but not
 * the key) is refused. The key itself never reaches the store.
 */
import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { LiveStore, StoredPrompt } from './store.js';

/** An entry as read: usable, refused (with why), or absent. */
export type CacheRead =
  | { entry: StoredPrompt; refused?: undefined }
  | { entry?: undefined; refused: string }
  | { entry?: undefined; refused?: undefined };

export class FleetCache {
  /** `<digest of address and key>:`: the prefix of every key of this instance's service. */
  readonly scope: string;
  readonly #secret: Buffer;

  constructor(
    readonly store: LiveStore,
    baseUrl: string,
    apiKey: string | undefined,
  ) {
    // Without a key there is no secret: entries are still kept apart by address, but anyone who
    // can write to the store can write one (docs/live.md says so).
    this.#secret = Buffer.from(hkdfSync('sha256', apiKey ?? '', baseUrl, 'promptlock/live fleet cache', 32));
    const identity = createHmac('sha256', this.#secret).update('identity').digest('hex');
    this.scope = createHash('sha256').update(`${baseUrl}\n${identity}`).digest('hex').slice(0, 24);
  }

  /** The store key of a prompt followed at a selector. */
  key(name: string, selector: string | null): string {
    return `${this.scope}:${name}:${selector ?? 'latest'}`;
  }

  #mac(key: string, fetchedAt: number, prompt: unknown): string {
    return createHmac('sha256', this.#secret)
      .update(JSON.stringify([key, fetchedAt, prompt]))
      .digest('base64url');
  }

  /** The entry at `key` if this instance's service answered it; throws when the store fails. */
  async get(key: string): Promise<CacheRead> {
    const stored = await this.store.get(key);
    if (stored === undefined) return {};
    if (stored.refused) return { refused: stored.refused };
    let mac: Buffer | undefined;
    let want: Buffer | undefined;
    try {
      mac = typeof stored.mac === 'string' ? Buffer.from(stored.mac, 'base64url') : undefined;
      want = Buffer.from(this.#mac(key, stored.fetchedAt, stored.prompt), 'base64url');
    } catch {
      mac = undefined;
    }
    if (!mac || !want || mac.length !== want.length || !timingSafeEqual(mac, want)) {
      return { refused: 'its signature is not one of this service and key (written by hand, by another service, or altered)' };
    }
    return { entry: stored };
  }

  async set(key: string, fetchedAt: number, prompt: unknown): Promise<void> {
    await this.store.set(key, { fetchedAt, prompt, mac: this.#mac(key, fetchedAt, prompt) });
  }
}
