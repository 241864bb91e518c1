/**
 * One poll's look at the service, within its allowance: the listing when it is due (once per lap
 * of the round-robin, so it does not eat every poll's budget), then floating prompts in turn,
 * comparing what the service answers with the lockfile's integrity.
 */

import { isFloating, requestedEntries, selectorFor } from '../config/prompt-entry.js';
import type { ResolvedConfig } from '../config/types.js';
import { ServiceError } from '../errors.js';
import type { Selector } from '../package-name.js';
import type { Lockfile } from '../store/lockfile-format.js';
import { snapshotIntegrity } from '../store/snapshot-format.js';
import { answeredPrompt } from '../sync/fetch-prompt.js';
import { listedNames } from '../sync/list-names.js';
import type { SyncClient } from '../sync/types.js';
import type { PromptSummary } from '../types.js';
import type { RoundRobin } from '../util/poll-budget.js';
import type { Observations } from './poll-client.js';

/** What the watcher keeps between polls. */
export interface UpstreamState {
  robin: RoundRobin;
  /** The last listing and the lap it was made in; undefined forces a new one. */
  listing: { items: PromptSummary[]; lap: number; cost: number } | undefined;
}

export interface UpstreamCheck {
  observed: Observations;
  /** Locked prompts whose upstream content differs from the lockfile. */
  changed: string[];
  /** Requested prompts not locked yet, or locked at another selector than the config asks. */
  pending: string[];
  /** Locked prompts no longer requested or listed. */
  vanished: string[];
  /** True when the requested set is fully known (no listing needed, or one was made). */
  complete: boolean;
  checked: string[];
  listed: boolean;
  /** Locked prompts at a floating selector: the ones polls take turns to check. */
  floating: number;
}

export interface Allowance {
  /** Requests this poll may send. */
  now: number;
  /** This poll's full share (`perPoll`). */
  share: number;
  /** Requests the per-minute budget has left. */
  room: number;
}

export async function checkUpstream(
  service: SyncClient,
  config: ResolvedConfig,
  lockfile: Lockfile | undefined,
  state: UpstreamState,
  allowance: Allowance,
): Promise<UpstreamCheck> {
  const start = service.stats.requests;
  const spent = () => service.stats.requests - start;
  const locked = lockfile?.prompts ?? {};
  const entries = requestedEntries(config.prompts);
  const needsListing = entries.length === 0 || entries.some((e) => e.kind === 'glob');
  const floating = Object.keys(locked).filter((name) => isFloating(locked[name]!.selector));

  let listed = false;
  const due = !state.listing || state.listing.lap !== state.robin.laps || floating.length === 0;
  // A listing longer than a poll's share (many pages, a small budget) still happens, when a poll
  // has its whole share and the minute has room; the window then holds the next polls back.
  const cost = state.listing?.cost ?? 1;
  const fits = cost <= allowance.now || (allowance.now === allowance.share && cost <= allowance.room);
  if (needsListing && due && fits) {
    const items = await service.listAll();
    state.listing = { items, lap: state.robin.laps, cost: Math.max(1, spent()) };
    listed = true;
  }

  const requested = new Map<string, Selector | null>();
  if (needsListing && state.listing) {
    for (const name of listedNames(state.listing.items, config.workspace)) {
      const selector = selectorFor(entries, name);
      if (selector !== undefined) requested.set(name, selector);
    }
  }
  for (const entry of entries) if (entry.kind === 'exact') requested.set(entry.name, entry.selector);
  const complete = !needsListing || state.listing !== undefined;
  const pending = [...requested]
    .filter(([name, selector]) => locked[name]?.selector !== selector)
    .map(([name]) => name)
    .sort();
  const vanished = complete
    ? Object.keys(locked)
        .filter((name) => !requested.has(name))
        .sort()
    : [];

  const observed: Observations = { listing: state.listing?.items, prompts: new Map(), missing: new Set() };
  const changed: string[] = [];
  const settled = new Set([...pending, ...vanished]);
  // New entries come first: the sync after this check fetches them, so their requests are kept
  // out of the round-robin's share. Otherwise a small per-poll share (--interval 1) spent on
  // re-checking locked prompts would leave nothing for them, poll after poll.
  const checked = state.robin.take(
    floating.filter((name) => !settled.has(name)),
    allowance.now - spent() - pending.length,
  );
  for (const name of checked) {
    const entry = locked[name]!;
    const asked = entry.selector ? `${name}:${entry.selector}` : name;
    try {
      const remote = await service.getPrompt(asked);
      observed.prompts.set(asked, remote);
      // Its snapshot's integrity only: how its placeholders read is the sync's business (a refused
      // prompt is skipped there, README "Placeholders"), never a failure of the poll.
      if (snapshotIntegrity(answeredPrompt(name, remote)) !== entry.integrity) changed.push(name);
    } catch (error) {
      if (!(error instanceof ServiceError) || error.status !== 404) throw error;
      // Gone upstream: a fresh listing drops a listed prompt; an exact entry is a config problem
      // that the sync reports with suggestions.
      state.listing = undefined;
      observed.missing.add(asked);
      if (entries.some((e) => e.kind === 'exact' && e.name === name)) changed.push(name);
    }
  }
  return { observed, changed, pending, vanished, complete, checked, listed, floating: floating.length };
}
