import type { StoreView } from '../store/commit-changes.js';
import type { Lockfile } from '../store/lockfile-format.js';
import type { Prompt } from '../types.js';
import { AggregatePromptlockError, PromptlockError, ServiceError } from '../errors.js';
import type { FetchedPrompt } from './fetch-prompt.js';
import type { RequestedEntry } from '../config/prompt-entry.js';
import type { SyncClient } from './sync-client.js';
import type { SyncOptions } from './sync.js';

/** What one sync run knows before it fetches: shared by the normal and the frozen path. */
export interface RunContext {
  options: SyncOptions;
  view: StoreView;
  previous: Lockfile;
  entries: readonly RequestedEntry[];
  withFiles: boolean;
  connect: () => Promise<SyncClient>;
}

/** What a run decided: the new lockfile, the prompts it fetched, and the ones it kept. */
export interface Work {
  next: Lockfile;
  fetched: FetchedPrompt[];
  /** Prompts not fetched this run, read from their snapshots. */
  kept: Map<string, Prompt>;
  partial: boolean;
}


/**
 * Failures that end the whole run, not one prompt: a rejected or unauthorised key, an address that
 * cannot be reached, or one that is not a prompt service. Reported once, whatever the prompt count.
 */
export function endsRun(error: unknown): boolean {
  return (
    error instanceof ServiceError &&
    (error.status === 401 || error.status === 403 || error.code === 'network' || error.code === 'not_a_service')
  );
}

/** Runs fetches for every target, collecting failures so one bad prompt does not hide others. */
export async function mapAll<T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const settled = await Promise.allSettled(items.map(run));
  // The same failure reached through several prompts (a shared listing, a run-ending answer) counts once.
  const errors = [...new Set(settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : [])))];
  if (errors.length > 0) {
    const unexpected = errors.find((e) => !(e instanceof PromptlockError));
    if (unexpected) throw unexpected;
    const fatal = errors.find(endsRun);
    if (fatal) throw fatal;
    if (errors.length === 1) throw errors[0];
    throw new AggregatePromptlockError(`${errors.length} prompts failed; nothing was written.`, errors as PromptlockError[]);
  }
  return settled.map((s) => (s as PromiseFulfilledResult<R>).value);
}

