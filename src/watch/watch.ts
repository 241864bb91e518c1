/**
 * `promptlock watch`: regenerates the module when the config, lockfile or snapshots change on disk,
 * and polls the service for floating selectors (`latest`, `draft`, none), syncing what changed.
 * Runs are serialised; a failed run keeps the last good files and says why; a broken config edit
 * keeps the last good config. Every request sent, the syncs' included, counts against the budget.
 */
import path from 'node:path';
import type { ResolvedConfig } from '../config/types.js';
import { PromptlockError } from '../errors.js';
import { readLockfile } from '../store/read-store.js';
import { acquireRunLock, type RunLock } from '../store/run-lock.js';
import { openStoreView } from '../store/store-view.js';
import { changeList } from '../sync/change-list.js';
import { createGenerateCache, generate, generateOptionsFor, mismatchWarning } from '../sync/generate.js';
import { storeFilesOf } from '../sync/store-files.js';
import { sync } from '../sync/sync.js';
import type { SyncClient } from '../sync/types.js';
import { pluralise } from '../util/pluralise.js';
import {
  type BudgetSettings,
  budgetNotice,
  CLI_BUDGET_SETTINGS,
  pollAllowance,
  pollBudget,
  RequestWindow,
  RoundRobin,
} from '../util/poll-budget.js';
import { checkUpstream, type UpstreamState } from './check-upstream.js';
import { editedSnapshots } from './edited-snapshots.js';
import { pollClient } from './poll-client.js';
import { type FileBatch, type WatchedPaths, watchFiles } from './watch-files.js';

export interface WatchLog {
  info(message: string): void;
  success(message: string): void;
  warn(message: string): void;
  verbose?(message: string): void;
}

export interface WatchOptions {
  loadConfig: () => Promise<ResolvedConfig>;
  connect: (config: ResolvedConfig) => Promise<SyncClient>;
  log: WatchLog;
  /** Seconds between polls; default: the config's `watchInterval`. */
  intervalSeconds?: number;
  /** The service's per-minute request limit; polling spends at most 20% of it. @default 1000 */
  limitPerMinute?: number;
  /** Quiet time after a file event before acting on it. @default 25 */
  debounceMs?: number;
  /** Poll the service; false only regenerates on file changes (the bundler plugin without `poll`). @default true */
  poll?: boolean;
  /** What the budget notice calls the interval and rate-limit settings. @default the CLI's flags */
  settings?: BudgetSettings;
}

interface WatchStats {
  polls: number;
  /** Requests sent to the service (polls and the syncs they started). */
  requests: number;
  /** Floating prompts fetched to compare with the lockfile. */
  checks: number;
  listings: number;
  syncs: number;
  generates: number;
}

export interface WatchHandle {
  /** Resolves once the file watcher is ready and the first poll and generate have run. */
  ready: Promise<void>;
  readonly stats: WatchStats;
  /** Stops watching and polling, waits for a run in progress, and closes the connection pool. */
  close(): Promise<void>;
}

/** How long to wait before regenerating again when another promptlock run holds the store. */
const BUSY_RETRY_MS = 500;

function explain(error: unknown): string {
  const hint = error instanceof PromptlockError && error.hint ? ` ${error.hint}` : '';
  return `${(error as Error).message ?? String(error)}${hint}`;
}

const pathsOf = (config: ResolvedConfig): WatchedPaths => ({
  configPath: config.configPath,
  lockfilePath: config.lockfilePath,
  snapshotsDir: config.snapshotsDir,
});

export async function startWatch(options: WatchOptions): Promise<WatchHandle> {
  const { log } = options;
  let config = await options.loadConfig();
  const stats: WatchStats = { polls: 0, requests: 0, checks: 0, listings: 0, syncs: 0, generates: 0 };
  const upstream: UpstreamState = { robin: new RoundRobin(), listing: undefined };
  const sent = new RequestWindow();
  const failing = new Map<string, string>(); // label → the failure last reported
  /** What one regeneration keeps for the next: unchanged snapshots are neither decoded nor compiled again. */
  const reuse = createGenerateCache();
  let service: { client: SyncClient; key: string } | undefined;
  let closed = false;
  let queue: Promise<void> = Promise.resolve();
  let pollTimer: NodeJS.Timeout | undefined;
  let busyTimer: NodeJS.Timeout | undefined;
  const interval = () => options.intervalSeconds ?? config.watchInterval;
  const display = (file: string) => path.relative(config.rootDir, file) || file;

  /** One pool for the watcher's whole life, replaced only when a config edit changes the connection. */
  const connection = async (): Promise<SyncClient> => {
    const key = JSON.stringify([config.baseUrl, config.apiKey ?? '', config.concurrency, config.timeout, config.limits]);
    if (service?.key !== key) {
      await service?.client.close();
      service = undefined;
      service = { client: await options.connect(config), key };
    }
    return service.client;
  };

  /**
   * Runs tasks one at a time. A failure is reported once (the same failure again, poll after poll
   * during an outage, only in --verbose), the last good files stay, and recovery is said.
   */
  const enqueue = (label: string, task: () => Promise<void>): Promise<void> => {
    const Label = `${label[0]!.toUpperCase()}${label.slice(1)}`;
    queue = queue.then(async () => {
      if (closed) return;
      try {
        await task();
        if (failing.delete(label)) log.success(`${Label} works again.`);
      } catch (error) {
        const why = explain(error);
        if (failing.get(label) === why) log.verbose?.(`${Label} failed again: ${why}`);
        else log.warn(`${Label} failed; keeping the last good files. ${why}`);
        failing.set(label, why);
      }
    });
    return queue;
  };

  const runSync = async (client: SyncClient, names?: string[]) => {
    const result = await sync({ config, connect: async () => client, ...(names ? { names } : {}) });
    stats.syncs++;
    const changes = changeList(result)
      .map((c) => c.text)
      .join(', ');
    if (changes) log.success(`Synced: ${changes}`);
  };

  const polling = options.poll !== false;
  /** The notice that the interval cannot be met is said once. */
  let budgetSaid = false;

  const poll = async () => {
    if (!polling) return;
    stats.polls++;
    const budget = pollBudget({ intervalSeconds: interval(), limitPerMinute: options.limitPerMinute });
    const allowance = { now: pollAllowance(budget, sent), share: budget.perPoll, room: Math.max(0, budget.perMinute - sent.used()) };
    if (allowance.now === 0)
      log.verbose?.(`Poll ${stats.polls}: the request budget (${budget.perMinute}/min) is used up; checking nothing.`);
    const client = await connection();
    const before = client.stats.requests;
    try {
      const view = await openStoreView(storeFilesOf(config));
      const lockfile = await readLockfile(view, config.lockfilePath);
      const found = await checkUpstream(client, config, lockfile, upstream, allowance);
      stats.checks += found.checked.length;
      if (found.listed) stats.listings++;
      const settings = options.settings ?? CLI_BUDGET_SETTINGS;
      const notice = budgetSaid
        ? undefined
        : budgetNotice({ floating: found.floating, intervalSeconds: interval(), limitPerMinute: options.limitPerMinute, settings });
      if (notice) log.info(notice);
      budgetSaid ||= notice !== undefined;
      log.verbose?.(
        `Poll ${stats.polls}: ${found.listed ? 'listed, ' : ''}checked ${found.checked.length}, changed ${found.changed.length}.`,
      );
      if (found.changed.length + found.pending.length + found.vanished.length === 0) return;
      const left = Math.max(0, allowance.now - (client.stats.requests - before));
      const observed = pollClient({ service: client, observed: found.observed, config, view, lockfile });
      // A full sync also prunes vanished prompts; it fits when every new prompt fits the budget.
      if (found.complete && found.pending.length <= left) return await runSync(observed);
      const now = found.pending.slice(0, left);
      const later = found.pending.length - now.length;
      if (later > 0)
        log.info(
          `${later} more new ${later === 1 ? 'prompt waits' : 'prompts wait'} for the next polls (request budget; \`promptlock sync\` fetches all at once).`,
        );
      if (found.changed.length + now.length > 0) await runSync(observed, [...found.changed, ...now]);
    } finally {
      const used = client.stats.requests - before;
      sent.record(used);
      stats.requests += used;
    }
  };

  /** Takes the run lock, or returns undefined when another promptlock run holds the store. */
  const tryRunLock = async (): Promise<RunLock | undefined> => {
    try {
      return await acquireRunLock(config.rootDir, 'watch');
    } catch (error) {
      if (error instanceof PromptlockError) return undefined;
      throw error;
    }
  };

  const regenerate = async (files: readonly string[]) => {
    const lock = await tryRunLock();
    if (!lock) {
      // Another run is writing the store; its writes bring new events, and this retry covers the rest.
      clearTimeout(busyTimer);
      busyTimer = setTimeout(() => void enqueue('regenerate', () => regenerate(files)), BUSY_RETRY_MS);
      return;
    }
    try {
      const result = await generate({ ...generateOptionsFor(config), force: true, cache: reuse });
      stats.generates++;
      if (result.written) log.success(`Regenerated ${display(result.outputPath)} (${pluralise(result.count, 'prompt')})`);
      for (const name of await editedSnapshots(config, files)) {
        log.warn(mismatchWarning(name));
      }
    } finally {
      await lock.release();
    }
  };

  const reloadConfig = async () => {
    let next: ResolvedConfig;
    try {
      next = await options.loadConfig();
    } catch (error) {
      log.warn(`The edited config is not valid; keeping the last good config until it is fixed. ${explain(error)}`);
      return;
    }
    config = next;
    files.update(pathsOf(config));
    upstream.listing = undefined; // the config may ask for other workspaces: list again
    log.info(polling ? 'Config changed: syncing what it asks for.' : 'Config changed: regenerating.');
    await poll();
    await regenerate([]);
  };

  const onBatch = (batch: FileBatch) => {
    if (batch.config) void enqueue('config reload', reloadConfig);
    else void enqueue('regenerate', () => regenerate(batch.files));
  };

  const files = await watchFiles(pathsOf(config), {
    debounceMs: options.debounceMs ?? 25,
    onBatch,
    onError: (error) => log.warn(`Watching files failed: ${error.message}`),
  });

  const schedule = () => {
    if (closed || !polling) return;
    pollTimer = setTimeout(() => void enqueue('poll', poll).then(schedule), interval() * 1000);
  };

  const ready = (async () => {
    await files.ready;
    await enqueue('poll', poll);
    await enqueue('regenerate', () => regenerate([]));
    schedule();
  })();

  return {
    ready,
    stats,
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(pollTimer);
      clearTimeout(busyTimer);
      await files.close();
      // A run in progress finishes (its writes are one transaction either way); none starts after.
      await queue;
      await service?.client.close();
    },
  };
}
