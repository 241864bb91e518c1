/**
 * The sync engine: resolve what the config asks for, fetch what changed, and commit snapshots,
 * lockfile and module in one transaction. `frozen` installs from the lockfile instead.
 */
import { generateModule } from '../codegen/index.js';
import { recordExportNames, type ExportRename } from '../codegen/naming.js';
import type { ResolvedConfig } from '../config/types.js';
import { LockfileError } from '../errors.js';
import { commitChanges, openStoreView, recoverStore, type StoreView } from '../store/commit-changes.js';
import { emptyLockfile, type Lockfile } from '../store/lockfile-format.js';
import { readLockedSnapshot, readLockfile } from '../store/read-store.js';
import { acquireRunLock } from '../store/run-lock.js';
import type { Prompt } from '../types.js';
import { frozenWork } from './frozen-work.js';
import { requestedEntries } from './requested-entries.js';
import type { RunContext, Work } from './run-context.js';
import { planStoreChanges } from './store-changes.js';
import type { SyncClient } from './sync-client.js';
import { syncWork } from './sync-work.js';

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
  /** Name every prompt's export afresh instead of keeping the names in the lockfile. */
  renameExports?: boolean;
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
  /** Prompts whose export name changed (only with `renameExports`, or a name removed from the lockfile). */
  renamed: ExportRename[];
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

export async function sync(options: SyncOptions): Promise<SyncResult> {
  const started = performance.now();
  const { config } = options;
  const withFiles = options.withFiles ?? config.contextFiles;
  const lock = options.dryRun ? undefined : await acquireRunLock(config.rootDir, options.frozen ? 'sync --frozen' : 'sync');
  // One client per run, however many prompts ask for it at once: concurrency, rate-limit pacing
  // and the request count all live in that one client (docs/local-service.md, rate limits).
  let client: SyncClient | undefined;
  let connecting: Promise<SyncClient> | undefined;
  const connect = () => (connecting ??= options.connect().then((opened) => (client = opened)));
  try {
    if (!options.dryRun) await recoverStore(config.rootDir);
    const view = await openStoreView(config.rootDir);
    const previous = (await readLockfile(view, config.lockfilePath)) ?? emptyLockfile();
    const ctx: RunContext = { options, view, previous, entries: requestedEntries(config.prompts), withFiles, connect };
    const work = options.frozen ? await frozenWork(ctx) : await syncWork(ctx);
    return await finish(options, view, previous, work, started, client);
  } finally {
    await connecting?.catch(() => undefined);
    await client?.close();
    await lock?.release();
  }
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
  // Every prompt keeps its export name; new ones are named around them (README, "The generated
  // module"). `--frozen` writes the lockfile as it is, names or not.
  let renamed: ExportRename[] = [];
  if (!options.frozen) {
    const named = recordExportNames(previous.prompts, work.next.prompts, options.renameExports);
    work = { ...work, next: { ...work.next, prompts: named.prompts } };
    renamed = named.renamed;
  }
  const after = new Map<string, Prompt>(work.kept);
  for (const f of work.fetched) after.set(f.name, f.prompt);
  // A partial sync still generates every locked prompt: read the ones it did not touch.
  for (const name of Object.keys(work.next.prompts)) {
    if (after.has(name)) continue;
    const state = await readLockedSnapshot(view, config.snapshotsDir, name, work.next.prompts[name]!, false, config.limits);
    if (!state.ok) {
      throw new LockfileError(`Cannot generate the module: ${state.problem}.`, { hint: 'Run a full `promptlock sync`.' });
    }
    after.set(name, state.prompt);
  }
  const before = new Map<string, Prompt>();
  for (const name of Object.keys(previous.prompts)) {
    if (options.dryRun || after.has(name)) {
      const state = await readLockedSnapshot(view, config.snapshotsDir, name, previous.prompts[name]!, false, config.limits);
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
      view,
      snapshotsDir: config.snapshotsDir,
      lockfilePath: config.lockfilePath,
      outputPath: config.outputPath,
      previous,
      next: work.next,
      fetched: work.fetched,
      moduleText,
      prune: !work.partial && !options.frozen,
    });
    ({ written, deleted } = await commitChanges(config.rootDir, changes, { storeDir: config.snapshotsDir }));
  }
  return {
    prompts: Object.keys(work.next.prompts).length,
    added,
    changed,
    removed,
    renamed,
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
