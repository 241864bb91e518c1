/**
 * `promptlock remove`: the config lost an entry, and only what that entry alone asked for leaves
 * the lockfile (its snapshot and context files go with it in the same commit). Every other prompt
 * stays exactly as locked: an upstream change to another prompt is not pulled (README, "Commands").
 * No request is sent, except for a kept prompt that a remaining glob now asks for at another
 * selector (its pinned entry was the one removed): that prompt alone is resolved again, as
 * `sync <name>` resolves it.
 */
import { selectorFor } from '../config/prompt-entry.js';
import { resolveFromService } from './resolve-from-service.js';
import type { ResolvedPrompts, SyncInputs } from './types.js';

export async function resolveRemoval(inputs: SyncInputs): Promise<ResolvedPrompts> {
  const { previous, entries, options } = inputs;
  const locked = Object.keys(previous.prompts).sort();
  const gone = new Set(locked.filter((name) => selectorFor(entries, name) === undefined));
  const moved = locked.filter((name) => !gone.has(name) && selectorFor(entries, name) !== previous.prompts[name]!.selector);
  const resolved: ResolvedPrompts =
    moved.length > 0
      ? await resolveFromService({ ...inputs, options: { ...options, names: moved } })
      : { next: previous, fetched: [], kept: new Map(), partial: true };
  const prompts = Object.fromEntries(Object.entries(resolved.next.prompts).filter(([name]) => !gone.has(name)));
  // Not partial: what left the lockfile is reported removed, and its files are deleted.
  return { ...resolved, next: { ...resolved.next, prompts }, partial: false };
}
