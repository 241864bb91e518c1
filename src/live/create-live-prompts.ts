/**
 * `promptlock/live`: the generated prompts, following the service at run time (docs/live.md).
 *
 * Per prompt: the committed function is the floor (its own render, always available); a version
 * fetched from the service replaces it only when compatible with the generated signature; the
 * cache is stale-while-revalidate with one refresh in flight; nothing the service or the store
 * does ever reaches the caller as an error.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Pool } from 'undici';
import { describeIssue } from '../api/describe-issue.js';
import { promptSchema } from '../api/schemas.js';
import { baseUrlProblem, DEFAULT_BASE_URL } from '../config/base-url.js';
import { ConfigError, PromptlockError } from '../errors.js';
import { recordedName } from '../package-name.js';
import { describeProblem, promptProblem } from '../prompt-grammar.js';
import { apiKeyFromEnv, maskKey } from '../secrets.js';
import { decodeLockfile, type LockEntry, type Lockfile } from '../store/lockfile-format.js';
import { parseTemplate, renderTemplate, type Segment, type VariableType } from '../template/index.js';
import { DEFAULT_BUDGET_SHARE, DEFAULT_LIMIT_PER_MINUTE, RequestWindow } from '../util/poll-budget.js';
import { incompatibility } from './compatibility.js';
import { type FetchTarget, fetchLivePrompt } from './fetch-live.js';
import { type LiveStore, memoryStore, type StoredPrompt } from './store.js';

// biome-ignore lint/suspicious/noExplicitAny: any function of the generated map
type AnyPrompt = (...args: any[]) => unknown;

export interface LivePromptsOptions {
  /** Address of the service; `PROMPTLOCK_BASE_URL` overrides it. @default 'https://api.baytos.ai' */
  baseUrl?: string;
  /** Seconds a fetched version is fresh; after that the next call refreshes it in the background. @default 60 */
  ttl?: number;
  /** Longest wait of a prompt's first call for the service before answering from the snapshot. @default 1000 */
  timeoutMs?: number;
  /** Deadline of one background request to the service, in milliseconds. @default 10000 */
  requestTimeoutMs?: number;
  /** Where fetched prompts are kept: memory in this process by default, or `redisStore({ url })`. */
  store?: LiveStore;
  /** `update`, `fallback`, `incompatible` and `store-error` events. Never given the key. */
  onEvent?: (event: LiveEvent) => void;
  /**
   * The lockfile the generated module was built from (a path, or its parsed JSON): it says which
   * selector each prompt was locked at and its variables' types. @default the nearest
   * `prompts.lock.json` from the working directory up
   */
  lockfile?: string | object;
  /** Follow prompts locked at `:draft` too. @default false */
  drafts?: boolean;
  /** The service's per-minute limit for this key. @default 1000 */
  rateLimit?: number;
  /** Share of `rateLimit` that refreshes of this process may use, over a sliding minute. @default 0.2 */
  budgetShare?: number;
}

/** Where the version a prompt serves comes from. */
export type LiveSource = 'snapshot' | 'live' | 'cache';

export type LiveEvent =
  | { type: 'update'; name: string; from: string; to: string; source: LiveSource }
  | { type: 'fallback'; name: string; reason: string; version: string; source: LiveSource }
  | { type: 'incompatible'; name: string; version: string; reason: string; serving: string }
  | { type: 'store-error'; message: string };

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

/** A fetched version, checked and parsed, ready to render. */
interface LiveVersion {
  version: string;
  fingerprint: string;
  base: Record<string, unknown>;
  content: Segment[];
  systemPrompt: Segment[] | null;
  critiquePrompt: Segment[] | null;
}

interface PromptState {
  name: string;
  fn: AnyPrompt;
  selector: string | null;
  follow: boolean;
  /** Variables of the generated function, in its order, with their types. */
  committed: Map<string, VariableType>;
  snapshotVersion: string;
  live: LiveVersion | undefined;
  source: LiveSource;
  reason: string;
  /** Fingerprint of the last version found incompatible, so it is reported once. */
  rejected: string | undefined;
  answered: boolean;
  checkedAt: number | undefined;
  nextCheckAt: number;
  inflight: Promise<void> | undefined;
}

const FLOATING = new Set(['latest', 'draft']);
/** How far another instance's clock may be ahead of ours. */
const CLOCK_SKEW_MS = 5_000;

/**
 * Wraps the generated `prompts` map: the same keys and variables, async, following the service for
 * prompts locked at a floating selector. Throws only for a wrong setup (a browser, a bad address,
 * no lockfile), never because of the service.
 */
export function createLivePrompts<P extends Record<string, AnyPrompt>>(prompts: P, options: LivePromptsOptions = {}): LivePrompts<P> {
  const scope = globalThis as { window?: unknown; document?: unknown };
  if (scope.window !== undefined || scope.document !== undefined) {
    throw new PromptlockError('promptlock/live runs on servers only: it needs the API key, which must never reach a browser.', {
      hint: 'Call the live prompts from server code (an API route, a server action) and send the rendered text to the page.',
    });
  }
  if (prompts === null || typeof prompts !== 'object') {
    throw new TypeError('createLivePrompts(prompts) takes the `prompts` map of the generated module.');
  }
  const ttlMs = Math.round(positive('ttl', options.ttl, 60) * 1000);
  const timeoutMs = positive('timeoutMs', options.timeoutMs, 1000, true);
  const requestTimeoutMs = positive('requestTimeoutMs', options.requestTimeoutMs, 10_000);
  const perMinute = Math.max(
    1,
    Math.floor(positive('rateLimit', options.rateLimit, DEFAULT_LIMIT_PER_MINUTE) * share(options.budgetShare)),
  );
  const apiKey = apiKeyFromEnv();
  const baseUrl = process.env.PROMPTLOCK_BASE_URL?.trim() || options.baseUrl || DEFAULT_BASE_URL;
  const problem = baseUrlProblem(baseUrl);
  if (problem) {
    const key = apiKey ? ` (key ${maskKey(apiKey)})` : '';
    throw new ConfigError(`Refusing the prompt service address ${JSON.stringify(baseUrl)}${key}: ${problem}.`, {
      hint: 'Use https://, or http:// only to a loopback address (127.0.0.1, ::1, localhost).',
    });
  }
  const lockfile = loadLockfile(options.lockfile);
  const store = options.store ?? memoryStore();
  const emit = (event: LiveEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A throwing listener must not break a prompt call.
    }
  };

  const url = new URL(baseUrl);
  let pool: Pool | undefined;
  const target = (): FetchTarget => {
    pool ??= new Pool(url.origin, { connections: 4, keepAliveTimeout: 30_000, pipelining: 1 });
    return { dispatcher: pool, basePath: url.pathname.replace(/\/+$/, ''), apiKey, timeoutMs: requestTimeoutMs };
  };
  const budget = new RequestWindow();
  /** A 429 or an exhausted window holds every refresh of this process until then. */
  let heldUntil = 0;
  /** Since when every store operation failed, or undefined while it answers. */
  let storeFailingSince: number | undefined;
  let closed = false;

  const states = new Map<string, PromptState>();
  for (const [name, fn] of Object.entries(prompts)) {
    if (typeof fn !== 'function')
      throw new TypeError(`createLivePrompts: prompts[${JSON.stringify(name)}] is not a generated prompt function.`);
    states.set(name, setUp(name, fn, lockfile, options.drafts === true));
  }

  function storeOk(): void {
    storeFailingSince = undefined;
  }
  function storeFailed(error: unknown): void {
    if (storeFailingSince !== undefined) return;
    storeFailingSince = Date.now();
    emit({
      type: 'store-error',
      message: `The live prompts store failed; using this process's memory until it answers again: ${(error as Error)?.message ?? String(error)}`,
    });
  }

  function storeKey(state: PromptState): string {
    return `${state.name}:${state.selector ?? 'latest'}`;
  }

  function served(state: PromptState): string {
    return state.live?.version ?? state.snapshotVersion;
  }

  function fallback(state: PromptState, reason: string): void {
    state.reason = `${reason}; serving ${served(state)} (${state.live ? 'last good version' : 'committed snapshot'})`;
    emit({ type: 'fallback', name: state.name, reason, version: served(state), source: state.source });
  }

  /**
   * Takes a version from the service or the store if it is compatible. False when it is not a
   * valid prompt of this package: what the store holds is as untrusted as the network.
   */
  function adopt(state: PromptState, raw: unknown, source: LiveSource): boolean {
    const parsed = promptSchema.safeParse(raw);
    if (!parsed.success) {
      fallback(state, `the ${source === 'cache' ? 'store' : 'service'} answered an invalid prompt (${describeIssue(parsed.error)})`);
      return false;
    }
    // The same grammar, limits and echoed-key check as sync (src/prompt-grammar.ts): a live
    // version is hostile input too, and what is adopted here is shared with the whole fleet.
    const problem = promptProblem(raw, { apiKey });
    if (problem) {
      fallback(state, `the ${source === 'cache' ? 'store' : 'service'} answered a refused prompt (${describeProblem(problem)})`);
      return false;
    }
    const prompt = parsed.data;
    // Named as sync records it (src/package-name.ts): the name asked for, with the answer's version.
    const named = recordedName(state.name, prompt);
    if (!named.ok) {
      fallback(state, `the ${source === 'cache' ? 'store' : 'service'} answer is refused: ${named.problem}`);
      return false;
    }
    const fingerprint = JSON.stringify([prompt.version, prompt.content, prompt.systemPrompt ?? null, prompt.critiquePrompt ?? null]);
    if (state.live?.fingerprint === fingerprint) {
      if (source === 'live') state.source = 'live';
      state.reason = `${prompt.version} from the service is current`;
      return true;
    }
    if (state.rejected === fingerprint) return true;
    const why = incompatibility(prompt, state.committed, state.name);
    if (why) {
      state.rejected = fingerprint;
      state.reason = `${prompt.version} on the service is not compatible with the generated function: ${why}; serving ${served(state)}`;
      emit({ type: 'incompatible', name: state.name, version: prompt.version, reason: why, serving: served(state) });
      return true;
    }
    const from = served(state);
    const previous = state.live;
    const { generatedAt: _volatile, ...metadata } = prompt.metadata;
    state.live = {
      version: prompt.version,
      fingerprint,
      base: {
        ...prompt,
        packageName: named.name,
        tags: prompt.tags ?? [],
        workspaceSlug: prompt.workspaceSlug ?? state.name.slice(1, state.name.indexOf('/')),
        context: prompt.context ?? [],
        metadata,
      },
      content: parseTemplate(prompt.content),
      systemPrompt: typeof prompt.systemPrompt === 'string' ? parseTemplate(prompt.systemPrompt) : null,
      critiquePrompt: typeof prompt.critiquePrompt === 'string' ? parseTemplate(prompt.critiquePrompt) : null,
    };
    state.source = source;
    state.rejected = undefined;
    state.reason = `${prompt.version} from the ${source === 'cache' ? 'store (fetched by this fleet)' : 'service'}`;
    const changed = previous !== undefined || from !== prompt.version || state.selector === 'draft';
    if (changed) emit({ type: 'update', name: state.name, from, to: prompt.version, source });
    return true;
  }

  async function refresh(state: PromptState): Promise<void> {
    const now = Date.now();
    state.checkedAt = now;
    state.nextCheckAt = now + ttlMs;
    const key = storeKey(state);
    let stored: StoredPrompt | undefined;
    try {
      stored = await store.get(key);
      storeOk();
    } catch (error) {
      storeFailed(error);
    }
    // A time ahead of ours by more than clock skew is not believed: it would keep the entry fresh.
    if (stored && now - stored.fetchedAt < ttlMs && stored.fetchedAt <= now + CLOCK_SKEW_MS) {
      if (adopt(state, stored.prompt, 'cache')) {
        state.nextCheckAt = stored.fetchedAt + ttlMs;
        return;
      }
      stored = undefined;
    }
    if (now < heldUntil) {
      if (stored) adopt(state, stored.prompt, 'cache');
      state.nextCheckAt = heldUntil;
      fallback(state, `the service asked to wait (rate limit) until ${new Date(heldUntil).toISOString()}`);
      return;
    }
    if (budget.used(now) >= perMinute) {
      if (stored) adopt(state, stored.prompt, 'cache');
      state.nextCheckAt = now + Math.min(ttlMs, 1000);
      fallback(state, `the refresh budget of ${perMinute} requests a minute is used up`);
      return;
    }
    let elected: boolean;
    try {
      // Held for as long as the request may take; shortened to one ttl once it has ended, so the
      // next refresh starts a ttl after this one's answer, however slow that answer was.
      elected = await store.claim(key, ttlMs + requestTimeoutMs);
      storeOk();
    } catch (error) {
      storeFailed(error);
      // A store that fails for a moment (a slow command) must not send the whole fleet to the
      // service at once: this process refreshes on its own only once the store has been failing
      // for a whole ttl.
      elected = Date.now() - storeFailingSince! >= ttlMs;
    }
    if (!elected) {
      // Another instance refreshes this prompt: look at the store again soon for its answer.
      if (stored) adopt(state, stored.prompt, 'cache');
      state.nextCheckAt = now + Math.max(25, Math.floor(ttlMs / 4));
      return;
    }
    if (closed) return;
    budget.record(1, now);
    const selector = state.selector;
    const outcome = await fetchLivePrompt(target(), selector === null ? state.name : `${state.name}:${selector}`);
    if (closed) return;
    if (outcome.rateLimit && outcome.rateLimit.remaining === 0) heldUntil = Math.max(heldUntil, outcome.rateLimit.resetAtMs);
    let holdMs = ttlMs;
    if (outcome.ok) {
      // Only an answer that passed validation is shared with the fleet.
      if (adopt(state, outcome.prompt, 'live')) {
        try {
          await store.set(key, { fetchedAt: Date.now(), prompt: outcome.prompt });
          storeOk();
        } catch (error) {
          storeFailed(error);
        }
      }
    } else {
      if (outcome.retryAfterMs !== undefined) {
        heldUntil = Math.max(heldUntil, Date.now() + outcome.retryAfterMs);
        state.nextCheckAt = heldUntil;
        holdMs = Math.max(ttlMs, outcome.retryAfterMs);
      }
      // What the service answered last may still be in the store (fetched by another instance).
      if (stored) adopt(state, stored.prompt, 'cache');
      fallback(state, outcome.reason);
    }
    try {
      await store.hold(key, holdMs);
      storeOk();
    } catch (error) {
      storeFailed(error);
    }
  }

  function startRefresh(state: PromptState): Promise<void> {
    if (!state.inflight) {
      state.inflight = refresh(state)
        .catch((error: unknown) => fallback(state, `refresh failed: ${(error as Error)?.message ?? String(error)}`))
        .finally(() => {
          state.inflight = undefined;
        });
    }
    return state.inflight;
  }

  function render(state: PromptState, variables: unknown): unknown {
    const live = state.live;
    if (!live) return state.fn(variables);
    const values = checkedValues(state, variables);
    const base = live.base;
    return {
      ...base,
      tags: (base.tags as unknown[]).slice(),
      context: (base.context as object[]).map((item) => ({ ...item })),
      metadata: { ...(base.metadata as object) },
      systemPrompt: live.systemPrompt && renderTemplate(live.systemPrompt, values),
      content: renderTemplate(live.content, values),
      critiquePrompt: live.critiquePrompt && renderTemplate(live.critiquePrompt, values),
    };
  }

  async function call(state: PromptState, args: unknown[]): Promise<unknown> {
    if (!state.follow || closed) return state.live ? render(state, args[0]) : state.fn(...args);
    if (!state.answered) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([startRefresh(state), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
      state.answered = true;
      if (!state.live && state.inflight)
        state.reason = `no answer within ${timeoutMs} ms yet; serving the committed snapshot ${state.snapshotVersion}`;
    } else if (Date.now() >= state.nextCheckAt && !state.inflight) {
      void startRefresh(state);
    }
    return render(state, args[0]);
  }

  const live: Record<string, unknown> = {};
  for (const state of states.values()) live[state.name] = (...args: unknown[]) => call(state, args);
  Object.defineProperties(live, {
    status: {
      enumerable: false,
      value: (): LivePromptStatus[] =>
        [...states.values()].map((state) => ({
          name: state.name,
          selector: state.selector,
          followed: state.follow,
          version: served(state),
          source: state.live ? state.source : 'snapshot',
          reason: state.reason,
          checkedAt: state.checkedAt,
        })),
    },
    close: {
      enumerable: false,
      value: async (): Promise<void> => {
        if (closed) return;
        closed = true;
        // Refreshes in flight are cut short (they end as fallbacks), not waited for.
        await Promise.allSettled([pool?.destroy()]);
        await Promise.allSettled([...states.values()].map((state) => state.inflight));
        await Promise.allSettled([store.close()]);
      },
    },
  });
  return live as LivePrompts<P>;
}

/** The variables of a call as the generated function reads them: an object with every name it takes. */
function checkedValues(state: PromptState, variables: unknown): Record<string, unknown> {
  if (state.committed.size === 0) return {};
  if (variables === null || typeof variables !== 'object') {
    throw new TypeError(`Prompt "${state.name}" takes its variables as an object, got ${variables === null ? 'null' : typeof variables}.`);
  }
  const values = variables as Record<string, unknown>;
  for (const name of state.committed.keys()) {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    if (value === undefined) throw new TypeError(`Prompt "${state.name}" is missing variable "${name}".`);
  }
  return values;
}

/**
 * The names a generated function reads, in order, and the version it returns: it is called once
 * with a recording stand-in for its variables (it only reads them, and renders text).
 */
function probe(fn: AnyPrompt): { names: string[]; version: unknown } {
  const names: string[] = [];
  const record = (property: string | symbol) => {
    if (typeof property === 'string' && !names.includes(property)) names.push(property);
  };
  // A generated function checks a name (getOwnPropertyDescriptor) or, on its fast path for a plain
  // object, only reads it (get): either records it.
  const stand = new Proxy(
    {},
    {
      getOwnPropertyDescriptor(_target, property) {
        record(property);
        return { value: '', writable: true, enumerable: true, configurable: true };
      },
      get: (_target, property) => {
        record(property);
        return '';
      },
      has: () => true,
    },
  );
  const rendered = fn(stand) as { version?: unknown } | undefined;
  return { names, version: rendered?.version };
}

function setUp(name: string, fn: AnyPrompt, lockfile: Lockfile, drafts: boolean): PromptState {
  const entry: LockEntry | undefined = lockfile.prompts[name];
  let snapshotVersion = '?';
  let names: string[] = [];
  let notFollowed: string | undefined;
  try {
    const seen = probe(fn);
    names = seen.names;
    snapshotVersion = typeof seen.version === 'string' ? seen.version : '?';
  } catch (error) {
    notFollowed = `the function did not render as a generated prompt (${(error as Error)?.message ?? String(error)})`;
  }
  const selector = entry?.selector ?? null;
  if (!notFollowed) {
    if (!entry) notFollowed = `the lockfile has no entry for ${name}; pass the lockfile the module was generated from`;
    else if (entry.version !== snapshotVersion) {
      notFollowed = `the lockfile locks ${entry.version} but the module was generated from ${snapshotVersion}; run \`promptlock generate\``;
    } else if (
      !sameNames(
        entry.variables.map((v) => v.name),
        names,
      )
    ) {
      notFollowed = "the lockfile's variables differ from the module's; run `promptlock generate`";
    } else if (selector !== null && !FLOATING.has(selector)) notFollowed = `pinned to ${selector}: never followed`;
    else if (selector === 'draft' && !drafts) notFollowed = 'locked at :draft; pass { drafts: true } to follow drafts';
  }
  return {
    name,
    fn,
    selector,
    follow: notFollowed === undefined,
    committed: new Map((entry?.variables ?? []).map((v) => [v.name, v.type])),
    snapshotVersion,
    live: undefined,
    source: 'snapshot',
    reason: notFollowed ? `committed snapshot ${snapshotVersion}: ${notFollowed}` : `committed snapshot ${snapshotVersion}: not asked yet`,
    rejected: undefined,
    answered: false,
    checkedAt: undefined,
    nextCheckAt: 0,
    inflight: undefined,
  };
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}

function loadLockfile(option: string | object | undefined): Lockfile {
  if (option !== undefined && typeof option === 'object') return decodeLockfile(JSON.stringify(option), 'the lockfile option');
  let file = typeof option === 'string' ? path.resolve(option) : findUp('prompts.lock.json');
  if (file === undefined || !existsSync(file)) {
    throw new ConfigError(
      `promptlock/live needs the lockfile the generated module was built from, and found none (${file ?? `no prompts.lock.json in ${process.cwd()} or above`}).`,
      { hint: 'Pass { lockfile: "path/to/prompts.lock.json" } (or its parsed JSON) to createLivePrompts, and ship it with the app.' },
    );
  }
  file = path.resolve(file);
  return decodeLockfile(readFileSync(file, 'utf8'), file);
}

function findUp(name: string): string | undefined {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, name);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function positive(name: string, value: number | undefined, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new ConfigError(
      `Invalid value for option "${name}" of createLivePrompts: expected a ${allowZero ? 'non-negative' : 'positive'} number, got ${String(value)}.`,
    );
  }
  return value;
}

function share(value: number | undefined): number {
  if (value === undefined) return DEFAULT_BUDGET_SHARE;
  if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
    throw new ConfigError(
      `Invalid value for option "budgetShare" of createLivePrompts: expected a fraction in (0, 1], got ${String(value)}.`,
    );
  }
  return value;
}
