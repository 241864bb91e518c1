/** The normal sync: resolve targets, keep what is pinned and intact, fetch the rest. */
import { ServiceError } from '../errors.js';
import type { Selector } from '../package-name.js';
import type { LockEntry, Lockfile } from '../store/lockfile-format.js';
import { readLockedSnapshot } from '../store/read-store.js';
import type { Prompt } from '../types.js';
import { closeMatches } from './close-matches.js';
import { fetchPrompt, lockPrompt, type ReusableFile } from './fetch-prompt.js';
import { listedNames } from './list-names.js';
import { resolveTargets, type Target } from './resolve-targets.js';
import { reusableFiles } from './reusable-files.js';
import { mapAll, type RunContext, type Work } from './run-context.js';

function isPinnedAndLocked(target: Target, locked: LockEntry | undefined): boolean {
  return Boolean(locked && target.selector && /^v\d+$/.test(target.selector) && locked.selector === target.selector && locked.version === target.selector);
}

export async function syncWork(ctx: RunContext): Promise<Work> {
  const { options, view, previous, entries, withFiles, connect } = ctx;
  const { config } = options;
  let listing: Promise<string[]> | undefined;
  const listed = () =>
    (listing ??= (async () => {
      options.onEvent?.({ type: 'phase', phase: 'list' });
      return listedNames(await (await connect()).listAll(), config.workspace);
    })());
  const { targets, partial } = await resolveTargets(entries, options, listed);
  options.onEvent?.({ type: 'phase', phase: 'fetch', total: targets.length });
  let done = 0;
  const kept = new Map<string, Prompt>();
  const results = await mapAll(targets, async (target) => {
    const locked = previous.prompts[target.name];
    if (isPinnedAndLocked(target, locked)) {
      const state = await readLockedSnapshot(view, config.snapshotsDir, target.name, locked!, withFiles, config.limits);
      const filesComplete = !withFiles || state.prompt?.context?.every((c) => c.type !== 'file' || locked!.files?.[c.id]);
      if (state.ok && filesComplete) {
        kept.set(target.name, state.prompt);
        options.onEvent?.({ type: 'prompt', name: target.name, done: ++done, total: targets.length, fetched: false });
        // Locked again from the snapshot, which matched its integrity: an id or variables edited
        // in the lockfile by hand is repaired (what `check` tells to run sync for).
        const relocked = lockPrompt(target.name, locked!.selector as Selector | null, state.prompt).entry;
        const entry = relocked.integrity === locked!.integrity ? { ...locked!, ...relocked } : locked!;
        return { name: target.name, entry };
      }
    }
    const reusable: ReadonlyMap<string, ReusableFile> = withFiles && locked ? await reusableFiles(view, config.snapshotsDir, locked) : new Map();
    try {
      const fetched = await fetchPrompt(await connect(), target.name, target.selector, { withFiles, reusable, limits: config.limits, apiKey: config.apiKey });
      options.onEvent?.({ type: 'prompt', name: target.name, done: ++done, total: targets.length, fetched: true });
      return { name: target.name, entry: fetched.entry, fetched };
    } catch (error) {
      throw await explainNotFound(error, target, listed);
    }
  });
  const next: Lockfile = { lockfileVersion: previous.lockfileVersion, prompts: partial ? { ...previous.prompts } : {} };
  for (const result of results) next.prompts[result.name] = result.entry;
  return { next, fetched: results.flatMap((r) => ('fetched' in r && r.fetched ? [r.fetched] : [])), kept, partial };
}

/**
 * A 404 for a name the config asks for: either the package exists but not at that selector, or
 * the package is unknown, with the names the service does list that come close.
 */
async function explainNotFound(error: unknown, target: Target, listed: () => Promise<string[]>): Promise<unknown> {
  if (!(error instanceof ServiceError) || error.status !== 404) return error;
  const { name, selector } = target;
  let names: string[] | undefined;
  try {
    names = await listed();
  } catch (listing) {
    // The explanation is a courtesy; the 404 is what matters, unless the address is not a service at all.
    if (listing instanceof ServiceError && listing.code === 'not_a_service') return listing;
  }
  if (selector && names?.includes(name)) {
    const what = selector === 'draft' ? 'no draft' : selector === 'latest' ? 'no published version' : `no version ${selector}`;
    return new ServiceError(`${name} exists, but has ${what} on the service (404).`, {
      status: 404,
      code: 'not_found',
      hint: `Change the selector of ${name} in the config (the service lists the package, so the name is right).`,
      cause: error,
    });
  }
  const suggestions = closeMatches(name, (names ?? []).filter((n) => n !== name));
  const asked = selector ? `${name}:${selector}` : name;
  const hint = suggestions.length > 0 ? `Did you mean ${suggestions.join(', ')}?` : 'Check the name in the config, and that your key can read its workspace.';
  return new ServiceError(`Prompt ${asked} was not found on the service (404).`, { status: 404, code: 'not_found', hint, cause: error });
}
