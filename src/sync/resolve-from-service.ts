/**
 * The normal sync: resolve targets, keep what is at an exact version and intact (a pinned prompt,
 * a merged lockfile's, `Target.exact`), fetch the rest.
 */
import { readingFor } from '../config/placeholder-reading.js';
import { LockfileError } from '../errors.js';
import { basePackageName, type Selector } from '../package-name.js';
import { integrityOf } from '../store/integrity.js';
import type { StoreView } from '../store/journal.js';
import type { LockEntry, Lockfile } from '../store/lockfile-format.js';
import { contextFilePath } from '../store/paths.js';
import { readLockedSnapshot } from '../store/read-store.js';
import type { Prompt, PromptSummary } from '../types.js';
import { fetchPrompt, lockPrompt } from './fetch-prompt.js';
import { clientPool } from './for-each-prompt.js';
import { duplicateItemsWarning, readListing } from './list-names.js';
import { confirmFetched, exactSelector } from './merge-resolution.js';
import { explainNotFound, notConfirmed, refusalOf, skipReason } from './resolve-errors.js';
import { namedTargets, targetsOf } from './resolve-targets.js';
import { RunTotals } from './run-totals.js';
import type { ExactVersion, FetchedPrompt, ResolvedPrompts, ReusableFile, SkippedPrompt, SyncClient, SyncInputs, Target } from './types.js';

/**
 * A floating target (`latest` or no selector) locked at a published version: the list proves it
 * unchanged when it names the prompt with that same version (docs/performance.md).
 */
function isFloatingAndLocked(target: Target, locked: LockEntry | undefined): boolean {
  return Boolean(
    locked &&
      (target.selector === null || target.selector === 'latest') &&
      locked.selector === target.selector &&
      /^v[1-9]\d*$/.test(locked.version),
  );
}

/**
 * One prompt's outcome: its new lock entry, and the prompt when it was fetched or kept; or why it
 * was skipped, with its lock entry and prompt as they were when it was locked before.
 */
type Resolved = { name: string } & (
  | { entry: LockEntry; fetched: FetchedPrompt }
  | { entry: LockEntry; kept: Prompt; skipped?: SkippedPrompt }
  | { skipped: SkippedPrompt }
);

/**
 * Resolves every target against the service, streaming: the exact entries start at once, the
 * globs' matches as each list page names them, while the next pages are fetched (docs/performance.md). Everything goes through the one client, so its concurrency bound, rate-limit
 * pacer and request count stay shared; this pool keeps one slot free for the list while it runs,
 * so a page never waits behind the gets it feeds.
 */
export async function resolveFromService(inputs: SyncInputs): Promise<ResolvedPrompts> {
  return new ServiceResolution(inputs).run();
}

/** One run's resolution against the service: its targets, the pool they run in, and its counts. */
class ServiceResolution {
  private readonly options: SyncInputs['options'];
  private readonly previous: Lockfile;
  /** Names were given (`sync <names…>`): the others stay as locked. */
  private readonly partial: boolean;
  /** The targets known before any list: the names given, or the config's exact entries. */
  private readonly known: Target[];
  private readonly wanted: ReturnType<typeof targetsOf>;
  /** The list decides the targets (a glob, or "every prompt"), not only proves some unchanged. */
  private readonly needsList: boolean;
  /** The list is read at all: it decides targets, or may prove some unchanged. */
  private readonly streams: boolean;
  private readonly totals: RunTotals;
  private readonly pool: ReturnType<typeof clientPool<Resolved>>;
  /** Provable targets waiting for the page that names them (or the list's end), holding no slot. */
  private readonly waiting = new Map<string, Target>();
  /** Targets only a glob (or "every prompt") asked for, by the list naming them. */
  private readonly fromList = new Set<string>();
  private total = 0;
  private done = 0;
  private savedByList = 0;
  /** Provable targets scheduled without the list's proof: each is fetched. */
  private unproven = 0;
  /** Whether any page named a prompt with its version (else the list can prove nothing). */
  private listedVersions = false;
  private listedItems = false;
  /** Across pages: the ids of the items naming each prompt (`duplicateItemsWarning`). */
  private readonly listedIds = new Map<string, Set<string>>();
  private listing: Promise<string[]> | undefined;

  constructor(private readonly inputs: SyncInputs) {
    const { options, previous, entries, connect } = inputs;
    this.options = options;
    this.previous = previous;
    // Usage errors first, before any request.
    const named = namedTargets(entries, options);
    this.partial = named !== undefined;
    this.wanted = targetsOf(named ? [] : entries);
    this.known = (named ?? this.wanted.exact).map((target) => this.at(target));
    this.needsList = !this.partial && this.wanted.needsList;
    this.streams = this.needsList || this.known.some((target) => this.provable(target));
    this.totals = new RunTotals(options.config.limits);
    this.pool = clientPool<Resolved>(connect, this.streams);
  }

  /**
   * The target, at an exact version when it is locked at its own selector and either pinned (the
   * selector is the locked version) or held by a merged lockfile (`SyncInputs.merged`).
   */
  private at(target: Target): Target {
    const locked = this.previous.prompts[target.name];
    if (!locked || locked.selector !== target.selector) return target;
    const exact: ExactVersion | undefined =
      this.inputs.merged?.get(target.name) ??
      (target.selector && /^v\d+$/.test(target.selector) && locked.version === target.selector
        ? { version: locked.version, reason: 'pinned' }
        : undefined);
    return exact ? { ...target, exact } : target;
  }

  /**
   * Floating prompts locked at a published version: the page that names them at that version
   * proves them unchanged. They wait for it (or the list's end) without holding a slot.
   */
  private provable(target: Target): boolean {
    return !this.options.refetch && !target.exact && isFloatingAndLocked(target, this.previous.prompts[target.name]);
  }

  private schedule(target: Target, listedVersion: string | undefined): void {
    const proven = listedVersion !== undefined && listedVersion === this.previous.prompts[target.name]?.version;
    if (!proven && this.provable(target)) this.unproven++;
    this.pool.add(() => this.resolveOne(target, proven));
  }

  /** Every listed base name, sorted, once the list has ended; pages are handled as they arrive. */
  private listed(): Promise<string[]> {
    this.listing ??= (async () => {
      this.options.onEvent?.({ type: 'phase', phase: 'list' });
      const client = this.totals.watch(await this.pool.client());
      const names = new Set<string>();
      for await (const page of client.listPages ? client.listPages() : wholeList(client)) {
        const { names: pageNames, versions, ids } = readListing(page, this.options.config.workspace);
        this.listedItems ||= pageNames.length > 0;
        this.listedVersions ||= versions.size > 0;
        for (const [name, set] of ids) for (const id of set) this.listedIds.set(name, (this.listedIds.get(name) ?? new Set()).add(id));
        for (const name of pageNames) {
          names.add(name);
          const target = this.waiting.get(name);
          if (target) {
            this.waiting.delete(name);
            this.schedule(target, versions.get(name));
          }
        }
        if (!this.needsList) continue;
        for (const target of this.wanted.add(pageNames).map((added) => this.at(added))) {
          this.total++;
          this.fromList.add(target.name);
          this.schedule(target, this.provable(target) ? versions.get(target.name) : undefined);
        }
      }
      return [...names].sort();
    })();
    return this.listing;
  }

  async run(): Promise<ResolvedPrompts> {
    const { pool, options, needsList } = this;
    this.total = this.known.length;
    for (const target of this.known) {
      if (this.streams && this.provable(target)) this.waiting.set(target.name, target);
      else this.schedule(target, undefined);
    }
    const listDone = this.streams ? this.listed() : undefined;
    // The total is known now, or when the last page has come (until then `prompt` events count up to what is known).
    try {
      if (!needsList) options.onEvent?.({ type: 'phase', phase: 'fetch', total: this.total });
    } catch (error) {
      // A library caller's event handler that throws ends the run, not before what it started has.
      pool.stop();
      await Promise.all([pool.finish(), listDone?.catch(() => undefined)]);
      throw error;
    }
    if (listDone) {
      try {
        await listDone;
        if (needsList) this.wanted.finish();
      } catch (error) {
        // The targets depend on the list: it fails the run, and nothing more starts. What is in
        // flight finishes first, so no request outlives the run.
        if (needsList) {
          pool.stop();
          await pool.finish();
          throw error;
        }
        // The list was only a proof: what it did not prove is fetched.
      }
      pool.listEnded();
      for (const target of this.waiting.values()) this.schedule(target, undefined);
      this.waiting.clear();
      if (needsList) options.onEvent?.({ type: 'phase', phase: 'fetch', total: this.total });
    }
    return this.collect(await pool.finish());
  }

  /**
   * The new lockfile and the prompts fetched and kept, in the order of names (as the targets were
   * before they streamed), so neither the order of the pages nor of the answers changes any output.
   */
  private collect(results: Resolved[]): ResolvedPrompts {
    results.sort((a, b) => a.name.localeCompare(b.name));
    const { previous, partial } = this;
    const next: Lockfile = { lockfileVersion: previous.lockfileVersion, prompts: partial ? { ...previous.prompts } : {} };
    const kept = new Map<string, Prompt>();
    const fetched: FetchedPrompt[] = [];
    const skipped: ResolvedPrompts['skipped'] = [];
    for (const result of results) {
      if ('skipped' in result && result.skipped) skipped.push(result.skipped);
      if (!('entry' in result)) continue;
      next.prompts[result.name] = result.entry;
      if ('fetched' in result) fetched.push(result.fetched);
      else kept.set(result.name, result.kept);
    }
    const warning = duplicateItemsWarning(this.listedIds);
    return {
      next,
      fetched,
      kept,
      partial,
      savedByList: this.savedByList,
      skipped,
      ...(warning ? { warnings: [warning] } : {}),
      // Why a sync of prompts that did not change cost a get each (docs/performance.md).
      ...(this.listedItems && !this.listedVersions && this.unproven > 0 ? { listWithoutVersions: true } : {}),
    };
  }

  private progress(name: string, fetched: boolean): void {
    this.options.onEvent?.({ type: 'prompt', name, done: ++this.done, total: this.total, fetched });
  }

  /**
   * One prompt, refused or not: a prompt that only a glob (or "every prompt") asked for and that
   * is refused is skipped, kept as it was locked; the others fail (README, "Placeholders").
   */
  private async resolveOne(target: Target, proven: boolean): Promise<Resolved> {
    try {
      return await this.fetchOrKeep(target, proven);
    } catch (error) {
      const refusal = refusalOf(error);
      // A version to confirm is never skipped: the merge must not keep what the service refuses.
      if (!refusal || !this.fromList.has(target.name) || target.exact?.reason === 'confirm') throw error;
      return this.skip(target, refusal);
    }
  }

  /**
   * A prompt the run leaves out, and why. One locked before stays as it was locked: its lock
   * entry, snapshot and function, whatever the reason (no failure removes a locked prompt).
   */
  private async skip(target: Target, why: Omit<SkippedPrompt, 'name'>): Promise<Resolved> {
    const { view, options } = this.inputs;
    const { config } = options;
    const locked = this.previous.prompts[target.name];
    this.progress(target.name, false);
    if (!locked) return { name: target.name, skipped: { name: target.name, ...why } };
    // Its files are kept as they are on disk: only the snapshot is needed to keep its function.
    const state = await readLockedSnapshot(view, config.snapshotsDir, target.name, locked, false, config.limits);
    if (!state.ok) {
      throw new LockfileError(
        `${target.name} is skipped (${why.reason}), and its locked ${locked.version} cannot be kept: ${state.problem}.`,
        {
          hint: 'Restore its snapshot from git, then run `promptlock sync` again.',
        },
      );
    }
    return { name: target.name, entry: locked, kept: state.prompt, skipped: { name: target.name, ...why, kept: locked.version } };
  }

  private async fetchOrKeep(target: Target, proven: boolean): Promise<Resolved> {
    const { inputs, options } = this;
    const { config } = options;
    const locked = this.previous.prompts[target.name];
    const { exact } = target;
    const unconfirmed = exact?.reason === 'confirm' ? exact.decision : undefined;
    const placeholders = readingFor(config.placeholders, target.name);
    // `sync --refetch <names…>` gets the named prompts whatever is on disk, pinned ones too: a
    // snapshot forged together with its lock entry is replaced by what the service has (the fix
    // `check --remote` names). A full `--refetch` keeps pinned prompts as locked (docs/cli.md).
    const refetchNamed = options.refetch === true && this.partial;
    if (!unconfirmed && !refetchNamed && (exact || proven)) {
      const kept = await this.keepFromSnapshot(target, locked!, proven);
      if (kept) return kept;
    }
    const reusable: ReadonlyMap<string, ReusableFile> =
      inputs.withFiles && locked ? await reusableFiles(inputs.view, config.snapshotsDir, locked) : new Map();
    try {
      const fetched = await fetchPrompt(this.totals.watch(await this.pool.client()), target.name, target.selector, {
        withFiles: inputs.withFiles,
        reusable,
        limits: config.limits,
        apiKey: config.apiKey,
        stager: inputs.stager,
        placeholders,
        ...(exact ? { exactVersion: exactSelector(exact.version) } : {}),
      });
      this.totals.countPrompt(fetched);
      // Two texts of one version in a merged lockfile: the service's must be one of them.
      if (unconfirmed) confirmFetched(unconfirmed, fetched.entry.integrity);
      await inputs.onFetched?.(fetched);
      this.progress(target.name, true);
      return { name: target.name, entry: fetched.entry, fetched };
    } catch (error) {
      if (unconfirmed) throw notConfirmed(error, unconfirmed);
      const skipped = skipReason(error, target, this.fromList);
      if (skipped) {
        return this.skip(target, skipped);
      }
      throw await explainNotFound(error, target, () => this.listed(), this.options.config.baseUrl);
    }
  }

  /** The prompt as its snapshot holds it, when the snapshot is intact (and its files, with `withFiles`); else undefined. */
  private async keepFromSnapshot(target: Target, locked: LockEntry, proven: boolean): Promise<Resolved | undefined> {
    const { view, withFiles, options } = this.inputs;
    const { config } = options;
    const state = await readLockedSnapshot(view, config.snapshotsDir, target.name, locked, withFiles, config.limits);
    const filesComplete = !withFiles || state.prompt?.context?.every((c) => c.type !== 'file' || locked.files?.[c.id]);
    if (!state.ok || !filesComplete) return undefined;
    // Locked again from the snapshot, which matched its integrity, read as the config reads it
    // now: an id or variables edited in the lockfile by hand is repaired (what `check` tells to
    // run sync for), and a changed `placeholders` option takes effect.
    const reading = readingFor(config.placeholders, target.name);
    const relocked = lockPrompt(target.name, locked.selector as Selector | null, state.prompt, reading).entry;
    const { placeholders: _readBefore, ...rest } = locked;
    const entry = relocked.integrity === locked.integrity ? { ...rest, ...relocked } : locked;
    if (proven) this.savedByList++;
    this.progress(target.name, false);
    return { name: target.name, entry, kept: state.prompt };
  }
}

/** A client without pages (a cached or observed listing): its whole list, as one page. */
async function* wholeList(client: SyncClient): AsyncGenerator<PromptSummary[], void, undefined> {
  yield await client.listAll();
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
