/** The normal sync: resolve targets, keep what is pinned and intact, fetch the rest. */
import { ServiceError } from '../errors.js';
import { basePackageName, type Selector } from '../package-name.js';
import { integrityOf } from '../store/integrity.js';
import type { StoreView } from '../store/journal.js';
import type { LockEntry, Lockfile } from '../store/lockfile-format.js';
import { contextFilePath } from '../store/paths.js';
import { readLockedSnapshot } from '../store/read-store.js';
import type { Prompt } from '../types.js';
import { editDistance } from '../util/edit-distance.js';
import { fetchPrompt, lockPrompt } from './fetch-prompt.js';
import { forEachPrompt } from './for-each-prompt.js';
import { type Listing, readListing } from './list-names.js';
import { exactSelector } from './merge-resolution.js';
import { resolveTargets } from './resolve-targets.js';
import type { ResolvedPrompts, ReusableFile, SyncInputs, Target } from './types.js';

function isPinnedAndLocked(target: Target, locked: LockEntry | undefined): boolean {
  return Boolean(
    locked &&
      target.selector &&
      /^v\d+$/.test(target.selector) &&
      locked.selector === target.selector &&
      locked.version === target.selector,
  );
}

/**
 * A floating target (`latest` or no selector) locked at a published version: the list proves it
 * unchanged when it names the prompt with that same version (README, "Performance").
 */
function isFloatingAndLocked(target: Target, locked: LockEntry | undefined): boolean {
  return Boolean(
    locked &&
      (target.selector === null || target.selector === 'latest') &&
      locked.selector === target.selector &&
      /^v[1-9]\d*$/.test(locked.version),
  );
}

export async function resolveFromService(inputs: SyncInputs): Promise<ResolvedPrompts> {
  const { options, view, previous, entries, withFiles, connect } = inputs;
  const { config } = options;
  let listing: Promise<Listing> | undefined;
  const list = () =>
    (listing ??= (async () => {
      options.onEvent?.({ type: 'phase', phase: 'list' });
      return readListing(await (await connect()).listAll(), config.workspace);
    })());
  const listed = async () => (await list()).names;
  const { targets, partial } = await resolveTargets(entries, options, listed);
  // Floating prompts locked at a published version wait for the list (started now, alongside the
  // other gets), which may prove them unchanged. A list that fails only costs those prompts their get.
  const provable = options.refetch
    ? 0
    : targets.filter((t) => isFloatingAndLocked(t, previous.prompts[t.name]) && !inputs.hold?.has(t.name)).length;
  const proof = provable > 0 ? list().catch(() => undefined) : undefined;
  options.onEvent?.({ type: 'phase', phase: 'fetch', total: targets.length });
  let done = 0;
  let savedByList = 0;
  const kept = new Map<string, Prompt>();
  const results = await forEachPrompt(targets, async (target) => {
    const locked = previous.prompts[target.name];
    // Held (after a merge conflict): kept at its locked version even when its selector floats.
    const held = inputs.hold?.has(target.name) === true && locked?.selector === target.selector;
    const proven = Boolean(
      proof && !held && isFloatingAndLocked(target, locked) && (await proof)?.versions.get(target.name) === locked!.version,
    );
    if (held || proven || isPinnedAndLocked(target, locked)) {
      const state = await readLockedSnapshot(view, config.snapshotsDir, target.name, locked!, withFiles, config.limits);
      const filesComplete = !withFiles || state.prompt?.context?.every((c) => c.type !== 'file' || locked!.files?.[c.id]);
      if (state.ok && filesComplete) {
        kept.set(target.name, state.prompt);
        if (proven) savedByList++;
        options.onEvent?.({ type: 'prompt', name: target.name, done: ++done, total: targets.length, fetched: false });
        // Locked again from the snapshot, which matched its integrity: an id or variables edited
        // in the lockfile by hand is repaired (what `check` tells to run sync for).
        const relocked = lockPrompt(target.name, locked!.selector as Selector | null, state.prompt).entry;
        const entry = relocked.integrity === locked!.integrity ? { ...locked!, ...relocked } : locked!;
        return { name: target.name, entry };
      }
    }
    const reusable: ReadonlyMap<string, ReusableFile> =
      withFiles && locked ? await reusableFiles(view, config.snapshotsDir, locked) : new Map();
    try {
      const fetched = await fetchPrompt(await connect(), target.name, target.selector, {
        withFiles,
        reusable,
        limits: config.limits,
        apiKey: config.apiKey,
        stager: inputs.stager,
        ...(held ? { exactVersion: exactSelector(locked!.version) } : {}),
      });
      await inputs.onFetched?.(fetched);
      options.onEvent?.({ type: 'prompt', name: target.name, done: ++done, total: targets.length, fetched: true });
      return { name: target.name, entry: fetched.entry, fetched };
    } catch (error) {
      throw await explainNotFound(error, target, listed);
    }
  });
  const next: Lockfile = { lockfileVersion: previous.lockfileVersion, prompts: partial ? { ...previous.prompts } : {} };
  for (const result of results) next.prompts[result.name] = result.entry;
  return { next, fetched: results.flatMap((r) => ('fetched' in r && r.fetched ? [r.fetched] : [])), kept, partial, savedByList };
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
  const suggestions = closeMatches(
    name,
    (names ?? []).filter((n) => n !== name),
  );
  const asked = selector ? `${name}:${selector}` : name;
  const hint =
    suggestions.length > 0
      ? `Did you mean ${suggestions.join(', ')}?`
      : 'Check the name in the config, and that your key can read its workspace.';
  return new ServiceError(`Prompt ${asked} was not found on the service (404).`, { status: 404, code: 'not_found', hint, cause: error });
}

/** Context files of a lock entry that are on disk and intact, so they need no download. */
async function reusableFiles(view: StoreView, snapshotsDir: string, entry: LockEntry): Promise<Map<string, ReusableFile>> {
  const out = new Map<string, ReusableFile>();
  for (const [id, locked] of Object.entries(entry.files ?? {})) {
    // Read only a plain file name inside a package's own `.files` folder (decodeLockfile checks the package).
    const [ws, folder] = locked.path.split('/');
    const content = await view.readFile(
      contextFilePath(snapshotsDir, basePackageName({ workspace: ws!, package: folder?.replace(/\.files$/, '') ?? '' }), locked.path),
    );
    if (content && integrityOf(content) === locked.integrity) out.set(id, { locked, content });
  }
  return out;
}

/** Suggestions for a name the service does not know ("did you mean …"): up to `limit`, closest first. */
export function closeMatches(name: string, candidates: readonly string[], limit = 3): string[] {
  const threshold = Math.max(3, Math.floor(name.length / 3));
  return candidates
    .map((candidate) => ({ candidate, d: editDistance(name, candidate) }))
    .filter(({ candidate, d }) => d <= threshold || candidate.includes(name.split('/')[1] ?? name))
    .sort((x, y) => x.d - y.d || x.candidate.localeCompare(y.candidate))
    .slice(0, limit)
    .map(({ candidate }) => candidate);
}
