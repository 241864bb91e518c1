/**
 * `promptlock watch`: regenerates the module when the config, lockfile or snapshots change on disk,
 * and polls the service for floating selectors (`latest`, `draft`, none), syncing what changed.
 * Runs are serialised; a failed run keeps the last good files and only warns.
 */
import path from 'node:path';
import { generate } from '../codegen/index.js';
import type { ResolvedConfig } from '../config/types.js';
import { openStoreView } from '../store/commit-changes.js';
import { readLockfile } from '../store/read-store.js';
import { lockPrompt } from '../sync/fetch-prompt.js';
import { listedNames } from '../sync/list-names.js';
import { isFloating, requestedEntries, selectorFor } from '../sync/requested-entries.js';
import type { SyncClient } from '../sync/sync-client.js';
import type { Lockfile } from '../store/lockfile-format.js';
import type { Selector } from '../package-name.js';
import { sync, type SyncResult } from '../sync/sync.js';
import { pollBudget, RoundRobin } from './poll-budget.js';

export interface WatchLog {
  info(message: string): void;
  success(message: string): void;
  warn(message: string): void;
}

export interface WatchOptions {
  loadConfig: () => Promise<ResolvedConfig>;
  connect: (config: ResolvedConfig) => Promise<SyncClient>;
  log: WatchLog;
  /** Seconds between polls; default: the config's `watchInterval`. */
  intervalSeconds?: number;
  /** The service's per-minute request limit; polling spends at most 20% of it. @default 1000 */
  limitPerMinute?: number;
  /** Quiet time after a file event before regenerating. @default 100 */
  debounceMs?: number;
}

export interface WatchHandle {
  /** Resolves once the file watcher is ready and the first poll has run. */
  ready: Promise<void>;
  readonly stats: { polls: number; requests: number; syncs: number; generates: number };
  close(): Promise<void>;
}

function describeChanges(result: SyncResult): string {
  const parts = [
    ...result.added.map((c) => `+ ${c.name} ${c.to}`),
    ...result.changed.map((c) => `~ ${c.name} ${c.from === c.to ? `${c.to} (edited)` : `${c.from} → ${c.to}`}`),
    ...result.removed.map((c) => `- ${c.name}`),
  ];
  return parts.join(', ');
}

export async function startWatch(options: WatchOptions): Promise<WatchHandle> {
  let config = await options.loadConfig();
  const stats = { polls: 0, requests: 0, syncs: 0, generates: 0 };
  const robin = new RoundRobin();
  const sent: number[] = []; // timestamps of poll requests, for the per-minute budget
  let client: SyncClient | undefined;
  let clientFor: ResolvedConfig | undefined;
  let closed = false;
  let queue: Promise<void> = Promise.resolve();

  const shared = async (): Promise<SyncClient> => {
    if (!client || clientFor !== config) {
      await client?.close();
      client = await options.connect(config);
      clientFor = config;
    }
    // sync closes the client it is given; the watcher keeps one pool for its whole life.
    const c = client;
    return {
      listAll: () => c.listAll(),
      getPrompt: (name, variables) => c.getPrompt(name, variables),
      getContextDownloadUrl: (id) => c.getContextDownloadUrl(id),
      downloadFile: (url, opts) => c.downloadFile(url, opts),
      get stats() {
        return c.stats;
      },
      close: async () => {},
    };
  };

  /** Runs tasks one at a time; a failure is reported and the last good files stay. */
  const enqueue = (label: string, task: () => Promise<void>) => {
    queue = queue.then(async () => {
      if (closed) return;
      try {
        await task();
      } catch (error) {
        options.log.warn(`${label} failed, keeping the last good files: ${(error as Error).message}`);
      }
    });
    return queue;
  };

  const runSync = async (names?: string[]) => {
    const result = await sync({ config, connect: shared, ...(names ? { names } : {}) });
    stats.syncs++;
    const changes = describeChanges(result);
    if (changes) options.log.success(`Synced: ${changes}`);
  };

  const regenerate = async () => {
    const result = await generate({ lockfilePath: config.lockfilePath, snapshotsDir: config.snapshotsDir, outputPath: config.outputPath, force: true });
    stats.generates++;
    if (result.written) options.log.success(`Regenerated ${path.relative(config.rootDir, result.outputPath)} (${result.count} prompts)`);
  };

  /** Counts requests sent by `task` against the polling budget. */
  const metered = async <T>(task: (service: SyncClient) => Promise<T>): Promise<T> => {
    const service = await shared();
    const before = service.stats.requests;
    try {
      return await task(service);
    } finally {
      const used = service.stats.requests - before;
      for (let i = 0; i < used; i++) sent.push(Date.now());
      stats.requests += used;
    }
  };

  /** What changed upstream, within the budget: new or vanished names, and floating prompts in turn. */
  const findChanges = (service: SyncClient, lockfile: Lockfile, allowed: number) => async () => {
    const entries = requestedEntries(config.prompts);
    const before = service.stats.requests;
    const changed = new Set<string>();
    let full = false;
    if (entries.length === 0 || entries.some((e) => e.kind === 'glob')) {
      const listed = new Set(listedNames(await service.listAll(), config.workspace).filter((n) => selectorFor(entries, n) !== undefined));
      for (const name of listed) if (!lockfile.prompts[name]) changed.add(name);
      const byGlob = Object.keys(lockfile.prompts).filter((n) => !entries.some((e) => e.kind === 'exact' && e.name === n));
      full = byGlob.some((name) => !listed.has(name));
    }
    const floating = Object.keys(lockfile.prompts)
      .filter((name) => isFloating(lockfile.prompts[name]!.selector))
      .sort();
    for (const name of robin.take(floating, allowed - (service.stats.requests - before))) {
      const entry = lockfile.prompts[name]!;
      const remote = await service.getPrompt(entry.selector ? `${name}:${entry.selector}` : name);
      if (lockPrompt(name, entry.selector as Selector | null, remote).entry.integrity !== entry.integrity) changed.add(name);
    }
    return { changed: [...changed].sort(), full };
  };

  const poll = async () => {
    stats.polls++;
    const now = Date.now();
    while (sent.length > 0 && sent[0]! <= now - 60_000) sent.shift();
    const budget = pollBudget({ intervalSeconds: options.intervalSeconds ?? config.watchInterval, limitPerMinute: options.limitPerMinute });
    const allowed = Math.min(budget.perPoll, budget.perMinute - sent.length);
    if (allowed <= 0) return;
    const lockfile = await readLockfile(await openStoreView(config.rootDir), config.lockfilePath);
    if (!lockfile) {
      await metered(() => runSync());
      return;
    }
    const { changed, full } = await metered((service) => findChanges(service, lockfile, allowed)());
    if (full) await metered(() => runSync());
    else if (changed.length > 0) await metered(() => runSync(changed));
  };

  // File watching: folders and files, no globs; chokidar is loaded only here.
  const { watch } = await import('chokidar');
  const watched = () => [config.configPath, config.lockfilePath, config.snapshotsDir].filter((p): p is string => Boolean(p));
  const watcher = watch(watched(), { ignoreInitial: true, ignored: (p: string) => p.includes(`${path.sep}.promptlock`) });
  let debounce: NodeJS.Timeout | undefined;
  let configChanged = false;
  watcher.on('all', (_event, file) => {
    if (closed) return;
    if (file === config.configPath) configChanged = true;
    else if (!file.endsWith('.json') && !file.includes('.files')) return;
    clearTimeout(debounce);
    debounce = setTimeout(() => {
      if (configChanged) {
        configChanged = false;
        void enqueue('config reload', async () => {
          const next = await options.loadConfig();
          const moved = watched().join('\n') !== [next.configPath, next.lockfilePath, next.snapshotsDir].filter(Boolean).join('\n');
          config = next;
          if (moved) watcher.add(watched());
          options.log.info('Config changed: syncing.');
          await runSync();
        });
      } else {
        void enqueue('regenerate', regenerate);
      }
    }, options.debounceMs ?? 100);
  });
  const watcherReady = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));

  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => {
      void enqueue('poll', poll).then(schedule);
    }, (options.intervalSeconds ?? config.watchInterval) * 1000);
  };
  const ready = Promise.all([watcherReady, enqueue('generate', regenerate).then(() => enqueue('poll', poll))]).then(() => {
    schedule();
  });

  return {
    ready,
    stats,
    async close() {
      closed = true;
      clearTimeout(timer);
      clearTimeout(debounce);
      await watcher.close();
      await queue;
      await client?.close();
    },
  };
}
