/**
 * The background refresh of followed prompts (docs/live.md): one request per prompt per ttl for
 * the whole fleet (the store elects one refresher), within this process's share of the rate limit,
 * holding off when the service says so (never longer than the CLI's cap), and sharing through the
 * fleet cache only what passed validation.
 */
import type { PromptServiceClient } from '../api/create-client.js';
import { CLIENT_DEFAULTS } from '../config/client-defaults.js';
import { RequestWindow } from '../util/poll-budget.js';
import { adopt } from './adopt.js';
import type { LiveConnection } from './connection.js';
import { fetchLivePrompt, liveClient } from './fetch-live.js';
import { type CacheRead, FleetCache } from './fleet-cache.js';
import { cleanReason, fallback, type PromptState } from './prompt-state.js';
import type { LiveSettings } from './settings.js';
import type { LiveStore, StoredPrompt } from './store.js';
import type { LiveEvent } from './types.js';

/** The longest hold a `Retry-After`, `X-RateLimit-Reset` or refresher key may impose: the CLI's cap. */
const MAX_HOLD_MS = CLIENT_DEFAULTS.maxRetryAfterMs;
/** How far another instance's clock may be ahead of ours. */
const CLOCK_SKEW_MS = 5_000;

export class Refresher {
  readonly #settings: LiveSettings;
  readonly #connection: LiveConnection;
  readonly #cache: FleetCache;
  readonly #emit: (event: LiveEvent) => void;
  readonly #budget = new RequestWindow();
  /** The CLI's own client (src/api/), opened at the first refresh. */
  #client: PromptServiceClient | undefined;
  /** A 429 or an exhausted window holds every refresh of this process until then. */
  #heldUntil = 0;
  /** Since when every store operation failed, or undefined while it answers. */
  #storeFailingSince: number | undefined;
  #closed = false;

  constructor(settings: LiveSettings, connection: LiveConnection, store: LiveStore, emit: (event: LiveEvent) => void) {
    this.#settings = settings;
    this.#connection = connection;
    this.#cache = new FleetCache(store, connection.baseUrl, connection.apiKey);
    this.#emit = emit;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Starts a refresh of `state` unless one is in flight; resolves when it has ended (never rejects). */
  start(state: PromptState): Promise<void> {
    if (!state.inflight) {
      state.inflight = this.#refresh(state)
        .catch((error: unknown) => this.#fallback(state, `refresh failed: ${(error as Error)?.message ?? String(error)}`))
        .finally(() => {
          state.inflight = undefined;
        });
    }
    return state.inflight;
  }

  /** Cuts refreshes in flight short (they end as fallbacks), then closes the store. */
  async close(states: Iterable<PromptState>): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([this.#client?.destroy()]);
    await Promise.allSettled([...states].map((state) => state.inflight));
    await Promise.allSettled([this.#cache.store.close()]);
  }

  #fallback(state: PromptState, reason: string): void {
    fallback(state, reason, this.#emit, this.#connection.apiKey);
  }

  #adopt(state: PromptState, raw: unknown, source: 'live' | 'cache'): boolean {
    return adopt(state, raw, source, { apiKey: this.#connection.apiKey, emit: this.#emit });
  }

  /** Takes the fleet's entry, and remembers its fetch time as seen. */
  #adoptStored(state: PromptState, stored: StoredPrompt): boolean {
    if (!this.#adopt(state, stored.prompt, 'cache')) return false;
    state.seenAt = Math.max(state.seenAt ?? 0, stored.fetchedAt);
    return true;
  }

  async #store<T>(operation: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false }> {
    try {
      const value = await operation();
      this.#storeFailingSince = undefined;
      return { ok: true, value };
    } catch (error) {
      if (this.#storeFailingSince === undefined) {
        this.#storeFailingSince = Date.now();
        this.#emit({
          type: 'store-error',
          message: cleanReason(
            `The live prompts store failed; using this process's memory until it answers again: ${(error as Error)?.message ?? String(error)}`,
            this.#connection.apiKey,
          ),
        });
      }
      return { ok: false };
    }
  }

  /** The fleet's entry for `key`, or undefined; a refused one is reported once per prompt. */
  async #read(state: PromptState, key: string): Promise<StoredPrompt | undefined> {
    const read = await this.#store<CacheRead>(() => this.#cache.get(key));
    if (!read.ok) return undefined;
    if (read.value.refused) {
      if (!state.storeRefused) {
        state.storeRefused = true;
        this.#emit({ type: 'store-refused', name: state.name, reason: cleanReason(read.value.refused, this.#connection.apiKey) });
      }
      return undefined;
    }
    if (read.value.entry) state.storeRefused = false;
    return read.value.entry;
  }

  async #refresh(state: PromptState): Promise<void> {
    const { ttlMs, requestTimeoutMs, perMinute } = this.#settings;
    const now = Date.now();
    state.checkedAt = now;
    state.nextCheckAt = now + ttlMs;
    const key = this.#cache.key(state.name, state.selector);
    let stored = await this.#read(state, key);
    // A time ahead of ours by more than clock skew is not believed: it would keep the entry fresh.
    if (stored && stored.fetchedAt > now + CLOCK_SKEW_MS) stored = undefined;
    // Signed, but older than an answer this instance already took: a captured entry written back
    // would step the prompt back to a version the service withdrew since (docs/live.md).
    if (stored && state.seenAt !== undefined && stored.fetchedAt < state.seenAt) stored = undefined;
    if (stored && now - stored.fetchedAt < ttlMs) {
      if (this.#adoptStored(state, stored)) {
        state.waitingSince = undefined;
        state.nextCheckAt = stored.fetchedAt + ttlMs;
        return;
      }
      stored = undefined;
    }
    // A stale entry is served while another instance refreshes, but not forever: never once it is
    // older than the longest hold a service may impose plus a request.
    if (stored && now - stored.fetchedAt > ttlMs + MAX_HOLD_MS + requestTimeoutMs) stored = undefined;
    if (this.#connection.unusable) {
      if (stored) this.#adoptStored(state, stored);
      this.#fallback(state, this.#connection.unusable);
      return;
    }
    if (now < this.#heldUntil) {
      if (stored) this.#adoptStored(state, stored);
      state.nextCheckAt = this.#heldUntil;
      this.#fallback(
        state,
        `the service at ${this.#connection.baseUrl} asked to wait (rate limit) until ${new Date(this.#heldUntil).toISOString()}`,
      );
      return;
    }
    if (this.#budget.used(now) >= perMinute) {
      if (stored) this.#adoptStored(state, stored);
      state.nextCheckAt = now + Math.min(ttlMs, 1000);
      this.#fallback(state, `the refresh budget of ${perMinute} requests a minute is used up`);
      return;
    }
    if (!(await this.#elected(state, key, now))) {
      // Another instance refreshes this prompt: look at the store again soon for its answer.
      if (stored) this.#adoptStored(state, stored);
      state.nextCheckAt = now + Math.max(25, Math.floor(ttlMs / 4));
      return;
    }
    if (this.#closed) return;
    await this.#fetch(state, key, stored, now);
  }

  /** Whether this instance refreshes `key` now. */
  async #elected(state: PromptState, key: string, now: number): Promise<boolean> {
    const { ttlMs, requestTimeoutMs } = this.#settings;
    // Held for as long as the request may take; shortened to one ttl once it has ended, so the
    // next refresh starts a ttl after this one's answer, however slow that answer was.
    const claim = await this.#store(() => this.#cache.store.claim(key, ttlMs + requestTimeoutMs));
    // A store that fails for a moment (a slow command) must not send the whole fleet to the
    // service at once: this process refreshes on its own only once the store has been failing
    // for a whole ttl.
    if (!claim.ok) return Date.now() - this.#storeFailingSince! >= ttlMs;
    if (claim.value) {
      state.waitingSince = undefined;
      return true;
    }
    // A refresher key is honoured no longer than any hold may last (a key written by hand, or one
    // left without an expiry, must not stop the fleet from refreshing).
    state.waitingSince ??= now;
    if (now - state.waitingSince <= ttlMs + MAX_HOLD_MS + requestTimeoutMs) return false;
    state.waitingSince = undefined;
    return true;
  }

  async #fetch(state: PromptState, key: string, stored: StoredPrompt | undefined, now: number): Promise<void> {
    const { ttlMs } = this.#settings;
    this.#budget.record(1, now);
    const selector = state.selector;
    this.#client ??= liveClient(this.#connection, this.#settings.requestTimeoutMs);
    const name = selector === null ? state.name : `${state.name}:${selector}`;
    // An answer with X-RateLimit-Remaining: 0 is held by the client itself: the next refresh is
    // refused unsent, with the time to the reset, and holds every refresh of the process as a 429 does.
    const outcome = await fetchLivePrompt(this.#client, this.#connection.baseUrl, name, MAX_HOLD_MS);
    if (this.#closed) return;
    let holdMs = ttlMs;
    if (outcome.ok) {
      // Only an answer that passed validation is shared with the fleet.
      const fetchedAt = Date.now();
      if (this.#adopt(state, outcome.prompt, 'live')) {
        state.seenAt = fetchedAt;
        await this.#store(() => this.#cache.set(key, fetchedAt, outcome.prompt));
      }
    } else {
      if (outcome.retryAfterMs !== undefined) {
        const wait = Math.min(outcome.retryAfterMs, MAX_HOLD_MS);
        this.#heldUntil = Math.max(this.#heldUntil, Date.now() + wait);
        state.nextCheckAt = this.#heldUntil;
        holdMs = Math.max(ttlMs, wait);
      }
      // What the service answered last may still be in the store (fetched by another instance).
      if (stored) this.#adoptStored(state, stored);
      this.#fallback(state, outcome.reason);
    }
    await this.#store(() => this.#cache.store.hold(key, holdMs));
  }
}
