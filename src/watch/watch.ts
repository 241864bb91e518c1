/**
 * `promptlock watch`: regenerates the module when the config, lockfile or snapshots change on disk,
 * and polls the service for floating selectors (`latest`, `draft`, none), syncing what changed.
 * Runs are serialised; a failed run keeps the last good files and says why; a broken config edit
 * keeps the last good config. Every request sent, the syncs' included, counts against the budget.
 * Its generates and syncs go through the front door (src/library.ts), which hands them in.
 */
import path from 'node:path';
import type { ResolvedConfig } from '../config/types.js';
import { PromptlockError } from '../errors.js';
import { readLockfile } from '../store/read-store.js';
import { RunLockHeldError } from '../store/run-lock.js';
import { openStoreView } from '../store/store-view.js';
import { changeList } from '../sync/change-list.js';
import { type GenerateResult, mismatchWarning } from '../sync/generate.js';
import { storeFilesOf } from '../sync/store-files.js';
import type { SyncClient, SyncResult } from '../sync/types.js';
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
import { pollClient } from './poll-client.js';
import { type WatchedPaths, watchFiles } from './watch-files.js';

export interface WatchLog {
  info(message: string): void;
  success(message: string): void;
  warn(message: string): void;
  verbose?(message: string): void;
}

export interface WatchOptions {
  loadConfig: () => Promise<ResolvedConfig>;
  connect: (config: ResolvedConfig) => Promise<SyncClient>;
  /** When two configs may share one client (the client's own rule, src/api/client-options.ts): a config edit that changes it reconnects. */
  clientKey: (config: ResolvedConfig) => string;
  /** `generate` through the front door, under the run lock (`RunLockHeldError` while another run holds it). */
  generate: (config: ResolvedConfig) => Promise<GenerateResult>;
  /** `sync` through the front door, over the watcher's client (only `names`, when given). */
  sync: (config: ResolvedConfig, client: SyncClient, names?: string[]) => Promise<SyncResult>;
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

/** Starts watching: the config is loaded first, then files are watched and the service polled. */
export async function startWatch(options: WatchOptions): Promise<WatchHandle> {
  const watcher = new Watcher(options, await options.loadConfig());
  return watcher.start();
}

/**
 * One watch session's state: the config it follows, its client, the request window, what failed
 * last, and the queue that runs one task at a time.
 */
class Watcher {
  readonly stats: WatchStats = { polls: 0, requests: 0, checks: 0, listings: 0, syncs: 0, generates: 0 };
  private readonly log: WatchLog;
  private readonly polling: boolean;
  private readonly upstream: UpstreamState = { robin: new RoundRobin(), listing: undefined };
  private readonly sent = new RequestWindow();
  /** label → the failure last reported. */
  private readonly failing = new Map<string, string>();
  /** Refused prompts already warned about, by name and reason: a poll that skips one again is quiet. */
  private readonly refused = new Set<string>();
  /** Snapshots the last regeneration found edited by hand: each is warned of once, when it becomes so. */
  private mismatched = new Set<string>();
  private service: { client: SyncClient; key: string } | undefined;
  private files: Awaited<ReturnType<typeof watchFiles>> | undefined;
  private closed = false;
  private queue: Promise<void> = Promise.resolve();
  private pollTimer: NodeJS.Timeout | undefined;
  private busyTimer: NodeJS.Timeout | undefined;
  /** The notice that the interval cannot be met is said once. */
  private budgetSaid = false;

  constructor(
    private readonly options: WatchOptions,
    private config: ResolvedConfig,
  ) {
    this.log = options.log;
    this.polling = options.poll !== false;
  }

  async start(): Promise<WatchHandle> {
    this.files = await watchFiles(pathsOf(this.config), {
      debounceMs: this.options.debounceMs ?? 25,
      onBatch: (config) => {
        if (config) void this.enqueue('config reload', () => this.reloadConfig());
        else void this.enqueue('regenerate', () => this.regenerate());
      },
      onError: (error) => this.log.warn(`Watching files failed: ${error.message}`),
    });
    const files = this.files;
    const ready = (async () => {
      await files.ready;
      await this.enqueue('poll', () => this.poll());
      await this.enqueue('regenerate', () => this.regenerate());
      this.schedule();
    })();
    return { ready, stats: this.stats, close: () => this.close() };
  }

  private interval(): number {
    return this.options.intervalSeconds ?? this.config.watchInterval;
  }

  /** One pool for the watcher's whole life, replaced only when a config edit changes the connection. */
  private async connection(): Promise<SyncClient> {
    const { config } = this;
    const key = this.options.clientKey(config);
    if (this.service?.key !== key) {
      await this.service?.client.close();
      this.service = undefined;
      this.service = { client: await this.options.connect(config), key };
    }
    return this.service.client;
  }

  /**
   * Runs tasks one at a time. A failure is reported once (the same failure again, poll after poll
   * during an outage, only in --verbose), the last good files stay, and recovery is said.
   */
  private enqueue(label: string, task: () => Promise<void>): Promise<void> {
    const Label = `${label[0]!.toUpperCase()}${label.slice(1)}`;
    this.queue = this.queue.then(async () => {
      if (this.closed) return;
      try {
        await task();
        if (this.failing.delete(label)) this.log.success(`${Label} works again.`);
      } catch (error) {
        const why = explain(error);
        if (this.failing.get(label) === why) this.log.verbose?.(`${Label} failed again: ${why}`);
        else this.log.warn(`${Label} failed; keeping the last good files. ${why}`);
        this.failing.set(label, why);
      }
    });
    return this.queue;
  }

  private async runSync(client: SyncClient, names?: string[]): Promise<void> {
    const result = await this.options.sync(this.config, client, names);
    this.stats.syncs++;
    // Breaking changes first and marked, as `sync` marks them: the app's calls of them no longer compile.
    const changes = changeList(result);
    if (changes.length > 0) this.log.success(`Synced: ${changes.map((c) => c.text).join(', ')}`);
    for (const c of changes) if (c.breaking) this.log.warn(`${c.name} breaking: ${c.breaking}`);
    // A prompt a glob matched that is refused stays as locked (README, "Placeholders"): said once.
    for (const skip of result.skipped) {
      const key = `${skip.name}\n${skip.reason}`;
      if (!skip.refused || this.refused.has(key)) continue;
      this.refused.add(key);
      this.log.warn(`Skipped ${skip.name}: ${skip.reason}${skip.kept ? `; it stays locked at ${skip.kept}` : ''}`);
    }
  }

  private async poll(): Promise<void> {
    if (!this.polling) return;
    const { config, stats, log } = this;
    stats.polls++;
    const budget = pollBudget({ intervalSeconds: this.interval(), limitPerMinute: this.options.limitPerMinute });
    const allowance = {
      now: pollAllowance(budget, this.sent),
      share: budget.perPoll,
      room: Math.max(0, budget.perMinute - this.sent.used()),
    };
    if (allowance.now === 0)
      log.verbose?.(`Poll ${stats.polls}: the request budget (${budget.perMinute}/min) is used up; checking nothing.`);
    const client = await this.connection();
    const before = client.stats.requests;
    try {
      const view = await openStoreView(storeFilesOf(config));
      const lockfile = await readLockfile(view, config.lockfilePath);
      const found = await checkUpstream(client, config, lockfile, this.upstream, allowance);
      stats.checks += found.checked.length;
      if (found.listed) stats.listings++;
      this.sayBudget(found.floating);
      log.verbose?.(
        `Poll ${stats.polls}: ${found.listed ? 'listed, ' : ''}checked ${found.checked.length}, changed ${found.changed.length}.`,
      );
      if (found.changed.length + found.pending.length + found.vanished.length === 0) return;
      const left = Math.max(0, allowance.now - (client.stats.requests - before));
      const observed = pollClient({ service: client, observed: found.observed, config, view, lockfile });
      // A full sync also prunes vanished prompts; it fits when every new prompt fits the budget.
      if (found.complete && found.pending.length <= left) return await this.runSync(observed);
      const now = found.pending.slice(0, left);
      const later = found.pending.length - now.length;
      if (later > 0)
        log.info(
          `${later} more new ${later === 1 ? 'prompt waits' : 'prompts wait'} for the next polls (request budget; \`promptlock sync\` fetches all at once).`,
        );
      if (found.changed.length + now.length > 0) await this.runSync(observed, [...found.changed, ...now]);
    } finally {
      const used = client.stats.requests - before;
      this.sent.record(used);
      stats.requests += used;
    }
  }

  /** Says once when the interval cannot be met for this many floating prompts. */
  private sayBudget(floating: number): void {
    if (this.budgetSaid) return;
    const settings = this.options.settings ?? CLI_BUDGET_SETTINGS;
    const notice = budgetNotice({ floating, intervalSeconds: this.interval(), limitPerMinute: this.options.limitPerMinute, settings });
    if (notice) this.log.info(notice);
    this.budgetSaid = notice !== undefined;
  }

  private async regenerate(): Promise<void> {
    const { config } = this;
    let result: GenerateResult;
    try {
      result = await this.options.generate(config);
    } catch (error) {
      if (!(error instanceof RunLockHeldError)) throw error;
      // Another run is writing the store; its writes bring new events, and this retry covers the rest.
      clearTimeout(this.busyTimer);
      this.busyTimer = setTimeout(() => void this.enqueue('regenerate', () => this.regenerate()), BUSY_RETRY_MS);
      return;
    }
    this.stats.generates++;
    if (result.written) {
      this.log.success(
        `Regenerated ${path.relative(config.rootDir, result.outputPath) || result.outputPath} (${pluralise(result.count, 'prompt')})`,
      );
    }
    for (const name of result.mismatched) if (!this.mismatched.has(name)) this.log.warn(mismatchWarning(name));
    this.mismatched = new Set(result.mismatched);
  }

  private async reloadConfig(): Promise<void> {
    let next: ResolvedConfig;
    try {
      next = await this.options.loadConfig();
    } catch (error) {
      this.log.warn(`The edited config is not valid; keeping the last good config until it is fixed. ${explain(error)}`);
      return;
    }
    this.config = next;
    this.files?.update(pathsOf(next));
    this.upstream.listing = undefined; // the config may ask for other workspaces: list again
    this.log.info(this.polling ? 'Config changed: syncing what it asks for.' : 'Config changed: regenerating.');
    await this.poll();
    await this.regenerate();
  }

  private schedule(): void {
    if (this.closed || !this.polling) return;
    this.pollTimer = setTimeout(() => void this.enqueue('poll', () => this.poll()).then(() => this.schedule()), this.interval() * 1000);
  }

  /** Stops watching and polling; a run in progress finishes (its writes are one transaction either way), none starts after. */
  private async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.pollTimer);
    clearTimeout(this.busyTimer);
    await this.files?.close();
    await this.queue;
    await this.service?.client.close();
  }
}
