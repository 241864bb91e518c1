/**
 * `promptlock/live`: the generated prompts, following the service at run time (docs/live.md).
 *
 * Per prompt: the committed function is the floor (its own render, always available); a version
 * fetched from the service replaces it only when compatible with the generated signature; the
 * cache is stale-while-revalidate with one refresh in flight; nothing the service or the store
 * does ever reaches the caller as an error. The parts: settings.ts (options, lockfile),
 * connection.ts (key and address), prompt-state.ts (one prompt), adopt.ts (taking a version),
 * refresher.ts (when and how to ask), fleet-cache.ts (what the store is trusted with).
 */
import { PromptlockError } from '../errors.js';
import { liveConnection } from './connection.js';
import { type PromptState, render, served, setUpPrompt } from './prompt-state.js';
import { Refresher } from './refresher.js';
import { liveSettings, loadLockfile } from './settings.js';
import { memoryStore } from './store.js';
import type { AnyPrompt, LiveEvent, LivePromptStatus, LivePrompts, LivePromptsOptions } from './types.js';

export type { LiveEvent, LivePromptStatus, LivePrompts, LivePromptsOptions, LiveSource } from './types.js';

/** Where a first call waits for the service, at most `timeoutMs`, before answering from what it has. */
async function firstCall(state: PromptState, refresher: Refresher, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([refresher.start(state), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
  state.answered = true;
  if (!state.live && state.inflight)
    state.reason = `no answer within ${timeoutMs} ms yet; serving the committed snapshot ${state.snapshotVersion}`;
}

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
  const settings = liveSettings(options);
  const { lockfile, projectDir } = loadLockfile(options.lockfile);
  const connection = liveConnection(options.baseUrl, projectDir);
  const emit = (event: LiveEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A throwing listener must not break a prompt call.
    }
  };
  const states = new Map<string, PromptState>();
  for (const [name, fn] of Object.entries(prompts)) {
    if (typeof fn !== 'function')
      throw new TypeError(`createLivePrompts: prompts[${JSON.stringify(name)}] is not a generated prompt function.`);
    states.set(name, setUpPrompt(name, fn, lockfile, settings.drafts));
  }
  const refresher = new Refresher(settings, connection, options.store ?? memoryStore(), emit);

  async function call(state: PromptState, args: unknown[]): Promise<unknown> {
    if (state.follow && !refresher.closed) {
      if (!state.answered) await firstCall(state, refresher, settings.timeoutMs);
      else if (Date.now() >= state.nextCheckAt && !state.inflight) void refresher.start(state);
    }
    return render(state, args);
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
    close: { enumerable: false, value: () => refresher.close(states.values()) },
  });
  return live as LivePrompts<P>;
}
