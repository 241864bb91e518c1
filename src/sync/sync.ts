/**
 * The sync engine: resolve what the config asks for, fetch what changed, and commit snapshots,
 * lockfile and module in one transaction. `frozen` installs from the lockfile instead.
 */
import { generateModule } from '../codegen/index.js';
import type { ResolvedConfig } from '../config/types.js';
import { AggregatePromptlockError, ConfigError, LockfileError, PromptlockError, ServiceError } from '../errors.js';
import { parsePackageName, type Selector } from '../package-name.js';
import { commitChanges, openStoreView, recoverStore, type StoreView } from '../store/commit-changes.js';
import { emptyLockfile, type LockEntry, type Lockfile } from '../store/lockfile-format.js';
import { readLockedSnapshot, readLockfile } from '../store/read-store.js';
import { acquireRunLock } from '../store/run-lock.js';
import type { Prompt } from '../types.js';
import { closeMatches } from './close-matches.js';
import { compareConfigWithLock } from './compare-config.js';
import { fetchPrompt, type FetchedPrompt, type ReusableFile } from './fetch-prompt.js';
import { listedNames } from './list-names.js';
import { requestedEntries, selectorFor, type RequestedEntry } from './requested-entries.js';
import { reusableFiles } from './reusable-files.js';
import { planStoreChanges } from './store-changes.js';
import type { SyncClient } from './sync-client.js';

export type SyncEvent =
  | { type: 'phase'; phase: 'list' | 'fetch' | 'write'; total?: number }
  | { type: 'prompt'; name: string; done: number; total: number; fetched: boolean };

export interface SyncOptions {
  config: ResolvedConfig;
  /** Opens the service client; called only when a request is needed. */
  connect: () => Promise<SyncClient>;
  /** Restrict the sync to these prompts (names from the config, with or without selector). */
  names?: readonly string[];
  /** Install exactly what the lockfile says (like `npm ci`). */
  frozen?: boolean;
  /** Download file context items; defaults to `config.contextFiles`. */
  withFiles?: boolean;
  /** Compute everything, write nothing (for `diff`). */
  dryRun?: boolean;
  onEvent?: (event: SyncEvent) => void;
}

export interface PromptChange {
  name: string;
  from?: string;
  to?: string;
}

export interface SyncResult {
  prompts: number;
  added: PromptChange[];
  changed: PromptChange[];
  removed: PromptChange[];
  unchanged: number;
  fetched: number;
  written: string[];
  deleted: string[];
  /** Prompts before and after, for `diff`. */
  before: Map<string, Prompt>;
  after: Map<string, Prompt>;
  requests: number;
  retries: number;
  status429: number;
  durationMs: number;
}

interface Target {
  name: string;
  selector: Selector | null;
}

function baseName(raw: string): { name: string; selector: Selector | undefined } {
  const parsed = parsePackageName(raw);
  if (!parsed) {
    throw new ConfigError(`"${raw}" is not a package name.`, { hint: 'Expected @workspace/package[:vN|latest|draft].' });
  }
  return { name: `@${parsed.workspace}/${parsed.package}`, selector: parsed.selector };
}

/** The prompts to sync, with the selector each is requested at. */
async function resolveTargets(
  entries: readonly RequestedEntry[],
  options: SyncOptions,
  listed: () => Promise<string[]>,
): Promise<{ targets: Target[]; partial: boolean }> {
  if (options.names && options.names.length > 0) {
    const targets = options.names.map((raw) => {
      const { name, selector } = baseName(raw);
      const wanted = selectorFor(entries, name);
      if (wanted === undefined) {
        throw new ConfigError(`${name} is not requested by ${options.config.configPath ?? 'the config'}.`, {
          hint: `Add it first: promptlock add ${raw}`,
        });
      }
      if (selector !== undefined && selector !== wanted) {
        throw new ConfigError(`${raw} does not match the config, which asks for ${name} at ${wanted ?? 'no selector'}.`, {
          hint: `Change the config (promptlock add ${raw}) or sync ${name} without a selector.`,
        });
      }
      return { name, selector: wanted };
    });
    return { targets, partial: true };
  }
  const map = new Map<string, Selector | null>();
  const needsList = entries.length === 0 || entries.some((e) => e.kind === 'glob');
  const names = needsList ? await listed() : [];
  if (entries.length === 0) for (const name of names) map.set(name, 'latest');
  for (const entry of entries) {
    if (entry.kind !== 'glob') continue;
    const matched = names.filter((name) => name.startsWith(`@${entry.workspace}/`));
    if (matched.length === 0) {
      throw new ServiceError(`${entry.raw} matched no prompt: the service lists none in workspace "${entry.workspace}".`, {
        code: 'empty_glob',
        hint: `Check the workspace name, and that your API key can read workspace "${entry.workspace}".`,
      });
    }
    for (const name of matched) if (!map.has(name)) map.set(name, entry.selector);
  }
  for (const entry of entries) if (entry.kind === 'exact') map.set(entry.name, entry.selector);
  const targets = [...map].map(([name, selector]) => ({ name, selector })).sort((a, b) => a.name.localeCompare(b.name));
  return { targets, partial: false };
}

function isPinnedAndLocked(target: Target, locked: LockEntry | undefined): boolean {
  return Boolean(locked && target.selector && /^v\d+$/.test(target.selector) && locked.selector === target.selector && locked.version === target.selector);
}

/** Runs fetches for every target, collecting failures so one bad prompt does not hide others. */
async function mapAll<T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const settled = await Promise.allSettled(items.map(run));
  const errors = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
  if (errors.length > 0) {
    const unexpected = errors.find((e) => !(e instanceof PromptlockError));
    if (unexpected) throw unexpected;
    if (errors.length === 1) throw errors[0];
    throw new AggregatePromptlockError(`${errors.length} prompts failed; nothing was written.`, errors as PromptlockError[]);
  }
  return settled.map((s) => (s as PromiseFulfilledResult<R>).value);
}

export async function sync(options: SyncOptions): Promise<SyncResult> {
  const started = performance.now();
  const { config } = options;
  const withFiles = options.withFiles ?? config.contextFiles;
  const lock = options.dryRun ? undefined : await acquireRunLock(config.rootDir, options.frozen ? 'sync --frozen' : 'sync');
  let client: SyncClient | undefined;
  const connect = async () => (client ??= await options.connect());
  try {
    if (!options.dryRun) await recoverStore(config.rootDir);
    const view = await openStoreView(config.rootDir);
    const previous = (await readLockfile(view, config.lockfilePath)) ?? emptyLockfile();
    const entries = requestedEntries(config.prompts);
    const work = options.frozen
      ? await frozenWork(options, view, previous, entries, withFiles, connect)
      : await syncWork(options, view, previous, entries, withFiles, connect);
    return await finish(options, view, previous, work, started, client);
  } finally {
    await client?.close();
    await lock?.release();
  }
}

interface Work {
  next: Lockfile;
  fetched: FetchedPrompt[];
  /** Prompts not fetched this run, read from their snapshots. */
  kept: Map<string, Prompt>;
  partial: boolean;
}

async function syncWork(
  options: SyncOptions,
  view: StoreView,
  previous: Lockfile,
  entries: readonly RequestedEntry[],
  withFiles: boolean,
  connect: () => Promise<SyncClient>,
): Promise<Work> {
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
      const state = await readLockedSnapshot(view, config.snapshotsDir, target.name, locked!, withFiles);
      const filesComplete = !withFiles || state.prompt?.context?.every((c) => c.type !== 'file' || locked!.files?.[c.id]);
      if (state.ok && filesComplete) {
        kept.set(target.name, state.prompt);
        options.onEvent?.({ type: 'prompt', name: target.name, done: ++done, total: targets.length, fetched: false });
        return { name: target.name, entry: locked! };
      }
    }
    const reusable: ReadonlyMap<string, ReusableFile> = withFiles && locked ? await reusableFiles(view, config.snapshotsDir, locked) : new Map();
    try {
      const fetched = await fetchPrompt(await connect(), target.name, target.selector, { withFiles, reusable });
      options.onEvent?.({ type: 'prompt', name: target.name, done: ++done, total: targets.length, fetched: true });
      return { name: target.name, entry: fetched.entry, fetched };
    } catch (error) {
      throw await explainNotFound(error, target.name, listed);
    }
  });
  const next: Lockfile = { lockfileVersion: previous.lockfileVersion, prompts: partial ? { ...previous.prompts } : {} };
  for (const result of results) next.prompts[result.name] = result.entry;
  return { next, fetched: results.flatMap((r) => ('fetched' in r && r.fetched ? [r.fetched] : [])), kept, partial };
}

/** A 404 for a name the config asks for, with the names the service does list that come close. */
async function explainNotFound(error: unknown, name: string, listed: () => Promise<string[]>): Promise<unknown> {
  if (!(error instanceof ServiceError) || error.status !== 404) return error;
  let suggestions: string[] = [];
  try {
    suggestions = closeMatches(name, await listed());
  } catch {
    // The suggestion is a courtesy; the 404 is what matters.
  }
  const hint = suggestions.length > 0 ? `Did you mean ${suggestions.join(', ')}?` : 'Check the name in prompts.config.ts and that your key can read its workspace.';
  return new ServiceError(`Prompt ${name} was not found on the service (404).`, { status: 404, code: 'not_found', hint, cause: error });
}

async function frozenWork(
  options: SyncOptions,
  view: StoreView,
  previous: Lockfile,
  entries: readonly RequestedEntry[],
  withFiles: boolean,
  connect: () => Promise<SyncClient>,
): Promise<Work> {
  const { config } = options;
  if (Object.keys(previous.prompts).length === 0 && !(await view.readFile(config.lockfilePath))) {
    throw new LockfileError(`sync --frozen needs a lockfile, and ${config.lockfilePath} does not exist.`, {
      hint: 'Run `promptlock sync` once and commit the lockfile and snapshots.',
    });
  }
  const problems = compareConfigWithLock(entries, previous);
  if (problems.length > 0) {
    throw new LockfileError(`The config and the lockfile disagree:\n  - ${problems.join('\n  - ')}`, {
      hint: 'Run `promptlock sync` to update the lockfile, then commit it.',
    });
  }
  const names = Object.keys(previous.prompts).sort();
  options.onEvent?.({ type: 'phase', phase: 'fetch', total: names.length });
  let done = 0;
  const kept = new Map<string, Prompt>();
  const fetched = await mapAll(names, async (name) => {
    const entry = previous.prompts[name]!;
    const state = await readLockedSnapshot(view, config.snapshotsDir, name, entry, withFiles);
    if (state.ok) {
      kept.set(name, state.prompt);
      options.onEvent?.({ type: 'prompt', name, done: ++done, total: names.length, fetched: false });
      return [];
    }
    const got = await fetchPrompt(await connect(), name, entry.selector as Selector | null, {
      withFiles,
      exactVersion: entry.version === 'v0' ? 'draft' : entry.version,
    });
    if (got.entry.integrity !== entry.integrity) {
      throw new LockfileError(`${name}@${entry.version} on the service no longer matches the lockfile (${state.problem}).`, {
        hint: 'Someone changed this version upstream. Run `promptlock sync` to lock what the service has now, and review the diff.',
      });
    }
    options.onEvent?.({ type: 'prompt', name, done: ++done, total: names.length, fetched: true });
    return [got];
  });
  return { next: previous, fetched: fetched.flat(), kept, partial: false };
}

async function finish(
  options: SyncOptions,
  view: StoreView,
  previous: Lockfile,
  work: Work,
  started: number,
  client: SyncClient | undefined,
): Promise<SyncResult> {
  const { config } = options;
  const after = new Map<string, Prompt>(work.kept);
  for (const f of work.fetched) after.set(f.name, f.prompt);
  // A partial sync still generates every locked prompt: read the ones it did not touch.
  for (const name of Object.keys(work.next.prompts)) {
    if (after.has(name)) continue;
    const state = await readLockedSnapshot(view, config.snapshotsDir, name, work.next.prompts[name]!, false);
    if (!state.ok) {
      throw new LockfileError(`Cannot generate the module: ${state.problem}.`, { hint: 'Run a full `promptlock sync`.' });
    }
    after.set(name, state.prompt);
  }
  const before = new Map<string, Prompt>();
  for (const name of Object.keys(previous.prompts)) {
    if (options.dryRun || after.has(name)) {
      const state = await readLockedSnapshot(view, config.snapshotsDir, name, previous.prompts[name]!, false);
      if (state.prompt) before.set(name, state.prompt);
    }
  }
  const added: PromptChange[] = [];
  const changed: PromptChange[] = [];
  let unchanged = 0;
  for (const [name, entry] of Object.entries(work.next.prompts)) {
    const old = previous.prompts[name];
    if (!old) added.push({ name, to: entry.version });
    else if (old.integrity !== entry.integrity || JSON.stringify(old.files ?? {}) !== JSON.stringify(entry.files ?? {})) {
      changed.push({ name, from: old.version, to: entry.version });
    } else unchanged++;
  }
  const removed = work.partial
    ? []
    : Object.keys(previous.prompts)
        .filter((name) => !work.next.prompts[name])
        .map((name) => ({ name, from: previous.prompts[name]!.version }));

  let written: string[] = [];
  let deleted: string[] = [];
  if (!options.dryRun) {
    options.onEvent?.({ type: 'phase', phase: 'write' });
    const moduleText = generateModule(
      Object.keys(work.next.prompts)
        .sort()
        .map((name) => ({ name, entry: work.next.prompts[name]!, prompt: after.get(name)! })),
    );
    const changes = await planStoreChanges({
      snapshotsDir: config.snapshotsDir,
      lockfilePath: config.lockfilePath,
      outputPath: config.outputPath,
      previous,
      next: work.next,
      fetched: work.fetched,
      moduleText,
      prune: !work.partial && !options.frozen,
    });
    ({ written, deleted } = await commitChanges(config.rootDir, changes));
  }
  return {
    prompts: Object.keys(work.next.prompts).length,
    added,
    changed,
    removed,
    unchanged,
    fetched: work.fetched.length,
    written,
    deleted,
    before,
    after,
    requests: client?.stats.requests ?? 0,
    retries: client?.stats.retries ?? 0,
    status429: client?.stats.status429 ?? 0,
    durationMs: Math.round(performance.now() - started),
  };
}
