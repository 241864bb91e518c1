/**
 * The sync engine, as a pipeline: read the store, resolve what the config asks for (from the
 * service, or from the lockfile with `frozen`), work out what changed, then commit snapshots,
 * lockfile and module in one transaction. The transaction is staged as prompts arrive: each
 * fetched prompt's files are compared with disk and, when they differ, appended to the pending
 * journal at once and released (docs/architecture.md, "Atomic commit"); after the last fetch only
 * the deletes, the lockfile and the module are added before the commit point.
 */
import { generateModuleFiles } from '../codegen/index.js';
import { type ExportRename, exportNames, recordExportNames } from '../codegen/naming.js';
import { requestedEntries } from '../config/prompt-entry.js';
import type { ResolvedConfig } from '../config/types.js';
import { LockfileError } from '../errors.js';
import { Transaction } from '../store/journal.js';
import { emptyLockfile, type LockEntry, type Lockfile } from '../store/lockfile-format.js';
import { conflictMarkerLine } from '../store/lockfile-merge.js';
import { contextFilePath, snapshotPath } from '../store/paths.js';
import { readLockedSnapshot } from '../store/read-store.js';
import { recoverStore } from '../store/recover-store.js';
import { acquireRunLock } from '../store/run-lock.js';
import { Stager } from '../store/staged-file.js';
import { openStoreView, type StoreView } from '../store/store-view.js';
import type { Prompt } from '../types.js';
import { breakingChange } from './breaking-change.js';
import { generate, generateOptionsFor } from './generate.js';
import { dropClashingExportNames, mergedVersions, readPreviousLockfile } from './merge-resolution.js';
import { placeholderNote } from './placeholder-notes.js';
import { resolveFromLockfile } from './resolve-from-lockfile.js';
import { resolveFromService } from './resolve-from-service.js';
import { resolveRemoval } from './resolve-removal.js';
import { fetchedChanges, planStoreChanges } from './store-changes.js';
import { storeFilesOf } from './store-files.js';
import type {
  FetchedPrompt,
  LockChanges,
  PromptChange,
  ResolvedPrompts,
  RestoredFile,
  SyncClient,
  SyncResult,
  SyncRunOptions,
} from './types.js';

export async function sync(options: SyncRunOptions): Promise<SyncResult> {
  const started = performance.now();
  const { config } = options;
  const withFiles = options.withFiles ?? config.contextFiles;
  const lock = options.dryRun ? undefined : await acquireRunLock(config.rootDir, options.frozen ? 'sync --frozen' : 'sync');
  // One client per run, however many prompts ask for it at once: concurrency, rate-limit pacing
  // and the request count all live in that one client (docs/service-interface.md, "Rate limits").
  let client: SyncClient | undefined;
  let connecting: Promise<SyncClient> | undefined;
  const connect = () => (connecting ??= options.connect().then((opened) => (client = opened)));
  // Downloaded context files wait in the work folder until the commit moves them; what it did not take is removed.
  const stager = new Stager(config.rootDir);
  // What this run writes, staged into one pending journal as it is fetched (a dry run stages nothing).
  const storeFiles = storeFilesOf(config);
  const transaction = options.dryRun ? undefined : new Transaction(storeFiles);
  const onFetched = async (fetched: FetchedPrompt) => {
    const changes = fetchedChanges(config.snapshotsDir, fetched);
    await transaction!.stage(changes);
    // Only what the module and the lockfile need stays: the prompt and its lock entry.
    delete fetched.snapshot;
    fetched.files = [];
  };
  try {
    // An interrupted run's journal changes prompt data only; the module is generated from that
    // data at once (this run may fail before it commits its own).
    if (!options.dryRun && (await recoverStore(storeFiles))) await generate(generateOptionsFor(config));
    const view = await openStoreView(storeFiles);
    const entries = requestedEntries(config.prompts);
    const { lockfile, resolution } = await readPreviousLockfile(view, config, entries);
    // Two prompts a merge locked under one export name: one is named afresh (and reported).
    const { lockfile: previous, dropped } = resolution
      ? dropClashingExportNames(lockfile!)
      : { lockfile: lockfile ?? emptyLockfile(), dropped: [] };
    // After a merged conflict every locked prompt keeps its version; one the two sides do not both
    // lock with the same text is confirmed with the service (a branch may have forged it), fetched
    // at exactly that version (src/sync/merge-resolution.ts). `--frozen` refuses two texts.
    const merged = resolution ? mergedVersions(previous, resolution, Boolean(options.frozen)) : undefined;
    const inputs = {
      options,
      view,
      previous,
      entries,
      withFiles,
      connect,
      stager,
      ...(merged ? { merged } : {}),
      ...(transaction ? { onFetched } : {}),
    };
    let resolved = options.frozen
      ? await resolveFromLockfile(inputs)
      : options.removeUnrequested
        ? await resolveRemoval(inputs)
        : await resolveFromService(inputs);
    const named = withExportNames(previous, resolved, dropped, options);
    resolved = named.resolved;
    const { renamed } = named;
    const after = await promptsAfter(view, config, resolved);
    const changes = lockChanges(previous, resolved.next, resolved.partial);
    // `diff` (a dry run) shows every prompt; a sync reads only the previous snapshots of what it
    // changed or removed, for its breaking marks and `--report`.
    const touched = options.dryRun ? undefined : [...changes.changed, ...changes.removed].map((c) => c.name);
    const before = await promptsBefore(view, config, previous, touched);
    // Callers of these functions break (README, "diff"): the same rule `diff` marks them by.
    const breaking = [...changes.changed, ...changes.removed].flatMap(({ name }) => {
      const change = breakingChange(previous.prompts[name]?.variables, resolved.next.prompts[name]?.variables);
      return change ? [{ name, change }] : [];
    });
    // Said once per prompt this run added or changed: what its function does not take.
    const placeholders = [...changes.added, ...changes.changed].flatMap(
      ({ name }) => placeholderNote(name, after.get(name)!, resolved.next.prompts[name]!) ?? [],
    );
    let files = { written: [] as string[], deleted: [] as string[] };
    let conflictedModule: string[] = [];
    // A removal before the first sync has nothing to remove from: it writes no lockfile.
    const nothingLocked = options.removeUnrequested && (await view.readFile(config.lockfilePath)) === undefined;
    let restored: RestoredFile[] = [];
    if (transaction && !nothingLocked) {
      options.onEvent?.({ type: 'phase', phase: 'write' });
      // `--frozen` fetches a prompt only to put back the files the lockfile locks: each one written is said.
      const candidates = options.frozen ? await restoreCandidates(view, config, resolved.fetched) : [];
      const conflicted = await stageTail(transaction, view, config, previous, resolved, after, !resolved.partial && !options.frozen);
      files = await transaction.commit();
      conflictedModule = conflicted.filter((file) => files.written.includes(file));
      restored = candidates.filter((c) => files.written.includes(c.file)).sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    }
    return {
      prompts: Object.keys(resolved.next.prompts).length,
      ...changes,
      breaking,
      renamed,
      fetched: resolved.fetched.length,
      savedByList: resolved.savedByList ?? 0,
      skipped: resolved.skipped ?? [],
      placeholders,
      warnings: resolved.warnings ?? [],
      listWithoutVersions: resolved.listWithoutVersions === true,
      ...files,
      restored,
      before,
      after,
      requests: client?.stats.requests ?? 0,
      retries: client?.stats.retries ?? 0,
      status429: client?.stats.status429 ?? 0,
      durationMs: Math.round(performance.now() - started),
      ...(resolution ? { resolvedConflict: resolution } : {}),
      ...(conflictedModule.length > 0 ? { conflictedModule } : {}),
    };
  } finally {
    // Each step whatever the one before did: a client that fails to close must not leave the
    // pending journal, the staged downloads or the run lock behind.
    await connecting?.catch(() => undefined);
    await client?.close().catch(() => undefined);
    await transaction?.abort().catch(() => undefined); // nothing once committed
    await stager.discard().catch(() => undefined);
    await lock?.release();
  }
}

/**
 * Every prompt keeps its export name; new ones are named around them (docs/generated-module.md),
 * and the prompts a merge's clash dropped a name of are listed as renamed. `--frozen` writes the
 * lockfile as it is, names or not.
 */
function withExportNames(
  previous: Lockfile,
  resolved: ResolvedPrompts,
  dropped: ReadonlyArray<{ name: string; exportName: string }>,
  options: Pick<SyncRunOptions, 'frozen' | 'renameExports'>,
): { resolved: ResolvedPrompts; renamed: ExportRename[] } {
  let renamed: ExportRename[] = [];
  if (!options.frozen) {
    const named = recordExportNames(previous.prompts, resolved.next.prompts, options.renameExports);
    resolved = { ...resolved, next: { ...resolved.next, prompts: named.prompts } };
    renamed = named.renamed;
  }
  if (dropped.length > 0) {
    const names = exportNames(Object.entries(resolved.next.prompts).map(([name, entry]) => ({ name, entry })));
    for (const { name, exportName } of dropped) {
      const now = names.get(name);
      if (now !== undefined && now !== exportName) renamed.push({ name, from: exportName, to: now });
    }
  }
  return { resolved, renamed };
}

/** The files a frozen run fetched prompts for (snapshot and locked context files), and whether each was on disk. */
async function restoreCandidates(view: StoreView, config: ResolvedConfig, fetched: readonly FetchedPrompt[]): Promise<RestoredFile[]> {
  const candidates: RestoredFile[] = [];
  for (const { name, entry } of fetched) {
    const files = [
      snapshotPath(config.snapshotsDir, name),
      ...Object.values(entry.files ?? {}).map((file) => contextFilePath(config.snapshotsDir, name, file.path)),
    ];
    for (const file of files) {
      const reason = (await view.readFile(file)) === undefined ? 'missing' : 'differed';
      candidates.push({ name, version: entry.version, file, reason });
    }
  }
  return candidates;
}

/** Every prompt of the new lockfile: kept, fetched, or (a partial sync) read from its snapshot. */
async function promptsAfter(view: StoreView, config: ResolvedConfig, resolved: ResolvedPrompts): Promise<Map<string, Prompt>> {
  const after = new Map<string, Prompt>(resolved.kept);
  for (const f of resolved.fetched) after.set(f.name, f.prompt);
  // A partial sync still generates every locked prompt: read the ones it did not touch.
  for (const name of Object.keys(resolved.next.prompts)) {
    if (after.has(name)) continue;
    const state = await readLockedSnapshot(view, config.snapshotsDir, name, resolved.next.prompts[name]!, false, config.limits);
    if (!state.ok) {
      throw new LockfileError(`Cannot generate the module: ${state.problem}.`, { hint: 'Run a full `promptlock sync`.' });
    }
    after.set(name, state.prompt);
  }
  return after;
}

/** The previous lockfile's prompts (only `names`, when given), as their snapshots hold them. */
async function promptsBefore(
  view: StoreView,
  config: ResolvedConfig,
  previous: Lockfile,
  names: readonly string[] = Object.keys(previous.prompts),
): Promise<Map<string, Prompt>> {
  const before = new Map<string, Prompt>();
  for (const name of names) {
    if (!previous.prompts[name]) continue;
    const state = await readLockedSnapshot(view, config.snapshotsDir, name, previous.prompts[name]!, false, config.limits);
    if (state.prompt) before.set(name, state.prompt);
  }
  return before;
}

/**
 * Whether a prompt is read alike: the same placeholders option and variables. A new reading of the
 * same snapshot (the `placeholders` option changed, or a new promptlock's grammar) is a change,
 * breaking like any other when the function's parameter changes.
 */
function sameReading(a: LockEntry, b: LockEntry): boolean {
  // Field by field: an entry read from the lockfile and one locked afresh order their keys apart.
  const reading = (entry: LockEntry) =>
    JSON.stringify([entry.placeholders ?? null, entry.variables.map((v) => [v.name, v.type, v.hint ?? null, v.description ?? null])]);
  return reading(a) === reading(b);
}

/** What changed between two lockfiles, prompt by prompt (a partial sync removes nothing). */
function lockChanges(previous: Lockfile, next: Lockfile, partial: boolean): LockChanges {
  const added: PromptChange[] = [];
  const changed: PromptChange[] = [];
  let unchanged = 0;
  for (const [name, entry] of Object.entries(next.prompts)) {
    const old = previous.prompts[name];
    if (!old) added.push({ name, to: entry.version });
    else if (old.integrity !== entry.integrity || JSON.stringify(old.files ?? {}) !== JSON.stringify(entry.files ?? {})) {
      changed.push({ name, from: old.version, to: entry.version });
    } else if (!sameReading(old, entry)) changed.push({ name, from: old.version, to: entry.version, reread: true });
    else unchanged++;
  }
  const removed = partial
    ? []
    : Object.keys(previous.prompts)
        .filter((name) => !next.prompts[name])
        .map((name) => ({ name, from: previous.prompts[name]!.version }));
  return { added, changed, removed, unchanged };
}

/**
 * Generates the module and stages it with the lockfile and the deletes, after the snapshots staged
 * while fetching. Its own function, so the module text is released once staged: the commit that
 * follows holds no file content. Returns the module's files that hold git conflict markers on disk
 * (a merge conflicted in them), which the summary names once they are rewritten.
 */
async function stageTail(
  transaction: Transaction,
  view: StoreView,
  config: ResolvedConfig,
  previous: Lockfile,
  resolved: ResolvedPrompts,
  after: ReadonlyMap<string, Prompt>,
  prune: boolean,
): Promise<string[]> {
  const moduleFiles = generateModuleFiles(
    Object.keys(resolved.next.prompts)
      .sort()
      .map((name) => ({ name, entry: resolved.next.prompts[name]!, prompt: after.get(name)! })),
    { outputPath: config.outputPath, omit: config.omit },
  );
  const changes = await planStoreChanges({
    view,
    snapshotsDir: config.snapshotsDir,
    lockfilePath: config.lockfilePath,
    previous,
    next: resolved.next,
    moduleFiles,
    prune,
  });
  await transaction.stage(changes);
  // Marker lines count only where git writes them: a prompt line that reads like one is escaped
  // in the module (src/codegen/escape.ts), so a module promptlock wrote holds none of its own.
  const conflicted: string[] = [];
  for (const file of moduleFiles) {
    const bytes = await view.readFile(file.path);
    if (bytes?.includes('<<<<<<<') && conflictMarkerLine(bytes.toString('utf8')) !== undefined) conflicted.push(file.path);
  }
  return conflicted;
}
