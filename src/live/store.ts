/**
 * Where live prompts keep what they fetched (docs/live.md, "Fleet store"). The default is memory
 * in this process; `redisStore` shares one cache and one refresher per prompt across a fleet.
 */

/** A prompt as the service answered it, and when it was fetched (epoch milliseconds). */
export interface StoredPrompt {
  fetchedAt: number;
  /** The service's answer, unvalidated: whoever reads it validates it again. */
  prompt: unknown;
  /** The writer's signature of key, time and prompt (docs/live.md, "What the fleet cache trusts"). */
  mac?: string | undefined;
  /** Set by a store that would not read the entry (too large, not an entry): why. */
  refused?: string | undefined;
}

/**
 * A live prompts cache. Operations may throw or reject (a store that is down): the caller then
 * keeps working from its own memory, so a store never turns into an error for the app.
 */
export interface LiveStore {
  get(key: string): Promise<StoredPrompt | undefined>;
  set(key: string, value: StoredPrompt): Promise<void>;
  /**
   * Elects the refresher of `key`: true for exactly one caller until `ms` have passed (or until
   * `hold` moves the end). In-process stores may answer true every time: the caller already runs
   * one refresh per prompt at a time.
   */
  claim(key: string, ms: number): Promise<boolean>;
  /** Keeps every caller from refreshing `key` for `ms` (after a 429 with Retry-After). */
  hold(key: string, ms: number): Promise<void>;
  close(): Promise<void>;
}

/** The default store: a map in this process. */
export function memoryStore(): LiveStore {
  const values = new Map<string, StoredPrompt>();
  const heldUntil = new Map<string, number>();
  return {
    async get(key) {
      return values.get(key);
    },
    async set(key, value) {
      values.set(key, value);
    },
    async claim(key, ms) {
      const now = Date.now();
      if ((heldUntil.get(key) ?? 0) > now) return false;
      heldUntil.set(key, now + ms);
      return true;
    },
    async hold(key, ms) {
      heldUntil.set(key, Date.now() + ms);
    },
    async close() {
      values.clear();
      heldUntil.clear();
    },
  };
}
