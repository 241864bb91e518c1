/** The public types of `promptlock/live` (docs/live.md). */
import type { LiveStore } from './store.js';

// biome-ignore lint/suspicious/noExplicitAny: any function of the generated map
export type AnyPrompt = (...args: any[]) => unknown;

export interface LivePromptsOptions {
  /**
   * Address of the service; `PROMPTLOCK_BASE_URL` (in the environment, `.env` or `.env.local` of
   * the project) overrides it. @default 'https://api.baytos.ai'
   */
  baseUrl?: string | undefined;
  /** Seconds a fetched version is fresh; after that the next call refreshes it in the background. @default 60 */
  ttl?: number | undefined;
  /** Longest wait of a prompt's first call for the service before answering from the snapshot. @default 1000 */
  timeoutMs?: number | undefined;
  /** Deadline of one background request to the service, in milliseconds. @default 10000 */
  requestTimeoutMs?: number | undefined;
  /** Where fetched prompts are kept: memory in this process by default, or `redisStore({ url })`. */
  store?: LiveStore | undefined;
  /** `update`, `fallback`, `incompatible`, `step-back`, `store-error` and `store-refused` events. Never given the key. */
  onEvent?: ((event: LiveEvent) => void) | undefined;
  /**
   * The lockfile the generated module was built from (a path, or its parsed JSON): it says which
   * selector each prompt was locked at and its variables' types. Its folder is the project whose
   * `.env` and `.env.local` are read. @default the nearest `prompts.lock.json` from the working directory up
   */
  lockfile?: string | object | undefined;
  /** Follow prompts locked at `:draft` too. @default false */
  drafts?: boolean | undefined;
  /** The service's per-minute limit for this key. @default 1000 */
  rateLimit?: number | undefined;
  /** Share of `rateLimit` that refreshes of this process may use, over a sliding minute. @default 0.2 */
  budgetShare?: number | undefined;
}

/** Where the version a prompt serves comes from. */
export type LiveSource = 'snapshot' | 'live' | 'cache';

export type LiveEvent =
  | { type: 'update'; name: string; from: string; to: string; source: LiveSource }
  | { type: 'fallback'; name: string; reason: string; version: string; source: LiveSource }
  | { type: 'incompatible'; name: string; version: string; reason: string; serving: string }
  /** A version lower than the one served was adopted (the service went back, e.g. after an unpublish). */
  | { type: 'step-back'; name: string; from: string; to: string; source: LiveSource }
  | { type: 'store-error'; message: string }
  /** A fleet cache entry that this instance's service did not answer (forged, or another service's): ignored. */
  | { type: 'store-refused'; name: string; reason: string };

export interface LivePromptStatus {
  name: string;
  /** The selector it was locked at (`latest`, `draft`, `v3`), or null for none. */
  selector: string | null;
  /** Whether it follows the service at all (floating selectors only). */
  followed: boolean;
  /** The version it serves now. */
  version: string;
  source: LiveSource;
  /** Why it serves that version, in words. */
  reason: string;
  /** When the service or the store was last asked, epoch milliseconds. */
  checkedAt: number | undefined;
}

export type LivePrompts<P extends Record<string, AnyPrompt>> = {
  [K in keyof P]: (...args: Parameters<P[K]>) => Promise<ReturnType<P[K]>>;
} & {
  /** Per prompt: which version it serves, from where, and why. */
  status(): LivePromptStatus[];
  /** Stops refreshing and closes connections (and the store). Calls still answer, from memory. */
  close(): Promise<void>;
};
