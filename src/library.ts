/**
 * The programmatic API (docs/api.md): `sync`, `generate`, `check` and `diff` find
 * and load the config as the CLI does (from `cwd`, or the file `config` names), take the API key
 * from `env`, and return what the CLI reports. They never print and never exit: failures are the
 * named errors of src/errors.ts, with the exit code the CLI would use in `exitCode`.
 */

import { existsSync } from 'node:fs';
import type { ClientEvent } from './api/index.js';
import type { ConfigConflictResolution } from './config/edit/resolve-conflict.js';
import type { ResolvedConfig } from './config/types.js';
import type { WhichResult } from './history/which.js';
import type { McpServerHandle, McpServerOptions } from './mcp/mcp-server.js';
import { basePackageName, parsePackageName } from './package-name.js';
import type { AppTypecheck, CompileError } from './sync/compile-errors.js';
import type { PromptDiff } from './sync/diff-prompts.js';
import type { GenerateCache, GenerateResult } from './sync/generate.js';
import type { CheckProblem, CheckResult, PullRequestReport, SyncClient, SyncEvent, SyncResult } from './sync/types.js';
import type { WatchHandle, WatchOptions } from './watch/watch.js';
import type { RunWorkspaceOptions, WorkspaceRun } from './workspace/run-workspace.js';

/** Which project: where its config is, and the environment it runs in. */
export interface ProjectOptions {
  /** Where the config search starts (up to the nearest package.json), and what `config` is relative to. @default process.cwd() */
  cwd?: string | undefined;
  /** An explicit config file (like `--config`); no search happens then. */
  config?: string | undefined;
  /** Source of PROMPTLOCK_API_KEY / BAYT_API_KEY and PROMPTLOCK_BASE_URL. @default process.env */
  env?: NodeJS.ProcessEnv | undefined;
}

export interface SyncOptions extends ProjectOptions {
  /** Only these prompts (names from the config, with or without selector); the module still holds every locked prompt. */
  names?: readonly string[] | undefined;
  /** Install exactly what the lockfile says, like `npm ci` (`sync --frozen`). */
  frozen?: boolean | undefined;
  /** Name every prompt's export afresh instead of keeping the names in the lockfile (`sync --rename-exports`). */
  renameExports?: boolean | undefined;
  /** Fetch every prompt, even those the list proves unchanged (`sync --refetch`). */
  refetch?: boolean | undefined;
  /** Download file context items next to the snapshots. Default: the config's `contextFiles`. */
  withFiles?: boolean | undefined;
  /**
   * After an entry left the config (`promptlock remove`): drop the prompts no entry asks for any
   * more, with their snapshots and context files, and regenerate the module; every other prompt
   * stays as locked, and no request is sent unless a kept prompt is now asked for at another selector.
   */
  removeUnrequested?: boolean | undefined;
  /** Progress: the phases (list, fetch, write) and each prompt done. */
  onEvent?: ((event: SyncEvent) => void) | undefined;
  /**
   * Build the pull-request body of what this sync changed into `result.report` (`sync --report`,
   * docs/ci.md): title, breaking changes first, skipped prompts,
   * placeholders kept as text, each prompt's diff.
   */
  report?: boolean | undefined;
  /**
   * After a breaking change, run the app's type-check (its `typecheck` script, else `tsc --noEmit`)
   * and give its compile errors in `result.typecheck` and the report (`sync --typecheck`).
   */
  typecheck?: boolean | undefined;
}

export interface GenerateOptions extends ProjectOptions {
  /** Accepted for scripts that pass it, and changes nothing: `generate` always builds the module and writes what differs. */
  force?: boolean | undefined;
}

export interface CheckOptions extends ProjectOptions {
  /** Also compare the lockfile with the service (needs the API key). */
  remote?: boolean | undefined;
  /** Type-check the module with the TypeScript compiler. @default true */
  typecheck?: boolean | undefined;
}

export interface DiffOptions extends ProjectOptions {
  /** Only these prompts. */
  names?: readonly string[] | undefined;
}

export interface DiffResult {
  /** One entry per prompt that a sync would add, remove or change, by name. */
  changes: PromptDiff[];
  /** The diff as `promptlock diff` prints it (no colours). */
  text: string;
  /** The diff as `promptlock diff --format markdown` writes it, for a pull-request comment. */
  markdown: string;
}

export type { AppTypecheck, CompileError, GenerateResult, PromptDiff, PullRequestReport, SyncEvent, SyncResult };

export interface SyncWorkspaceOptions {
  /** Where the search for the workspace root starts (upward): a package.json with "workspaces", or a pnpm-workspace.yaml. @default process.cwd() */
  cwd?: string | undefined;
  /** Source of the API key and PROMPTLOCK_BASE_URL (each app's .env files apply too). @default process.env */
  env?: NodeJS.ProcessEnv | undefined;
  /** Every app installs exactly what its lockfile says (`sync --recursive --frozen`). */
  frozen?: boolean | undefined;
  /** Name every prompt's export afresh instead of keeping the names in the lockfile (`sync --rename-exports`). */
  renameExports?: boolean | undefined;
  /** Fetch every prompt, even those the list proves unchanged (`sync --refetch`). */
  refetch?: boolean | undefined;
  /** Download file context items next to the snapshots. Default: each app's `contextFiles`. */
  withFiles?: boolean | undefined;
}

/** One app of `syncWorkspace`: its result, or why it failed (the other apps still ran). */
export type AppSyncResult =
  | { app: string; dir: string; ok: true; result: SyncResult }
  | { app: string; dir: string; ok: false; error: unknown };

export interface SyncWorkspaceResult {
  /** Workspace root (absolute). */
  root: string;
  /** One entry per app with a promptlock config, in folder order. */
  apps: AppSyncResult[];
  /** Requests sent to the service, all apps together. */
  requests: number;
}

/** What `check` found: every problem as `check --json` gives it in `details` (empty: all agree). */
export type { CheckProblem, CheckResult };

/**
 * What an operation tells as it runs: sync's progress, notices and warnings, the client's retries
 * and waits. `edited`: the prompt whose snapshot a warning is about (watch says that once itself).
 */
type LibraryEvent = SyncEvent | { type: 'info' | 'warn'; message: string; edited?: string } | { type: 'service'; event: ClientEvent };

/**
 * How an entry point of promptlock (the CLI, the bundler plugin, watch) calls an operation, beyond
 * the public options: a config it already loaded, a client it shares, and where events go. Not
 * part of the public API: the public functions (`sync`, `generate`, `check`, `diff`) take none,
 * and the entry points call their `call…` twins (test/library/public-types.e2e.test.ts reads the
 * built declarations).
 */
export interface Caller {
  /** The config, already loaded: no search, no load. */
  config?: ResolvedConfig | undefined;
  /** Opens the client (a workspace's shared one); default: one opened from the config. */
  connect?: (() => Promise<SyncClient>) | undefined;
  /** Retries of one request (watch and the plugin: the next poll is the retry). */
  retries?: number | undefined;
  /** Told each config loaded: its key is as secret as one from the environment. */
  onConfig?: ((config: ResolvedConfig) => void) | undefined;
  /** Set by sync: git conflict markers in the config's prompts list are resolved, and this is told how. */
  onConflictResolved?: ((resolution: ConfigConflictResolution) => void) | undefined;
  onEvent?: ((event: LibraryEvent) => void) | undefined;
  /** generate: what the previous generation in this process keeps for the next (watch, the plugin). */
  cache?: GenerateCache | undefined;
  /** generate: with no lockfile yet, write a module with no prompts instead of failing (`npm install` before the first sync). */
  emptyWithoutLockfile?: boolean | undefined;
  /**
   * generate: hold the run lock under this command's name while the store is read and the module
   * written, so a sync of another process is never read half-committed (watch). Another run
   * holding it is a `RunLockHeldError`.
   */
  runLock?: string | undefined;
}

/** Finds and loads the config as the CLI does (`--config`, or searched from `cwd`). */
export async function loadProject(options: ProjectOptions, caller: Caller = {}): Promise<ResolvedConfig> {
  const { loadConfig } = await import('./config/load-config.js');
  const config = await loadConfig({
    cwd: options.cwd ?? process.cwd(),
    ...(options.config ? { configPath: options.config } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(caller.onConflictResolved ? { onConflictResolved: caller.onConflictResolved } : {}),
  });
  caller.onConfig?.(config);
  return config;
}

/** Opens the service client for a config: the one place a client is made from a config. */
async function openClient(config: ResolvedConfig, caller: Caller = {}): Promise<SyncClient> {
  const { createClient, clientOptionsFor } = await import('./api/index.js');
  const { onEvent } = caller;
  return createClient({
    ...clientOptionsFor(config),
    ...(caller.retries !== undefined ? { retries: caller.retries } : {}),
    ...(onEvent ? { onEvent: (event: ClientEvent) => onEvent({ type: 'service', event }) } : {}),
  });
}

/** The config and the client an operation runs with: the caller's, or loaded and opened here. */
async function projectOf(options: ProjectOptions, caller: Caller) {
  const config = caller.config ?? (await loadProject(options, caller));
  return { config, connect: caller.connect ?? (() => openClient(config, caller)) };
}

/** `promptlock sync`: resolves what the config asks for, fetches what changed, commits snapshots, lockfile and module. */
export function sync(options: SyncOptions = {}): Promise<SyncResult> {
  return callSync(options, {});
}

/** `sync` as an entry point calls it. */
export async function callSync(options: SyncOptions, caller: Caller): Promise<SyncResult> {
  const { config, connect } = await projectOf(options, caller);
  const { sync: run } = await import('./sync/sync.js');
  const onEvent = options.onEvent ?? caller.onEvent;
  const result = await run({
    config,
    connect,
    ...(options.names ? { names: options.names } : {}),
    frozen: Boolean(options.frozen),
    ...(options.withFiles !== undefined ? { withFiles: options.withFiles } : {}),
    ...(options.renameExports ? { renameExports: true } : {}),
    ...(options.refetch ? { refetch: true } : {}),
    ...(options.removeUnrequested ? { removeUnrequested: true } : {}),
    ...(onEvent ? { onEvent } : {}),
  });
  // Only a changed parameter (or a removed prompt) can break a caller: otherwise there is nothing to look for.
  if (options.typecheck && result.breaking.length > 0) {
    const { typecheckApp } = await import('./sync/app-typecheck.js');
    result.typecheck = await typecheckApp(config.rootDir, options.env ?? process.env);
  }
  // Built only when asked: a sync of thousands of prompts would otherwise diff each for nothing.
  if (options.report) result.report = (await import('./sync/pull-request-report.js')).syncReport(result, config);
  return result;
}

/** Where `eachApp` runs and what it tells (the CLI prints a heading per app, and each failure under it). */
export interface EachAppOptions<T> extends Pick<RunWorkspaceOptions<T>, 'onApp' | 'onOutcome' | 'onConflictResolved'> {
  cwd?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
}

/** Runs `run` in every app of the workspace, over clients shared by the apps that ask for the same service. */
export async function eachApp<T>(options: EachAppOptions<T>, caller: Caller, run: RunWorkspaceOptions<T>['run']): Promise<WorkspaceRun<T>> {
  const { runWorkspace } = await import('./workspace/run-workspace.js');
  return runWorkspace({
    ...options,
    cwd: options.cwd ?? process.cwd(),
    ...(options.env ? { env: options.env } : {}),
    open: (config) => openClient(config, caller),
    run,
  });
}

/**
 * `promptlock sync --recursive`: syncs every app of the workspace (docs/cli.md, "Monorepos") over one
 * shared client that lists once and fetches each prompt version once for the run. An app that
 * fails is in `apps` with its error; the others commit. Throws ConfigError only when there is no
 * workspace, or no app in it.
 */
export async function syncWorkspace(options: SyncWorkspaceOptions = {}): Promise<SyncWorkspaceResult> {
  const { cwd, env, ...each } = options;
  const done = await eachApp({ cwd, env }, {}, (_app, config, connect) => callSync(each, { config, connect }));
  return {
    root: done.workspace.root,
    apps: done.outcomes.map((o) => ({
      app: o.app.name,
      dir: o.app.relativeDir,
      ...(o.ok ? { ok: true as const, result: o.value } : { ok: false as const, error: o.error }),
    })),
    requests: done.requests,
  };
}

/**
 * `promptlock generate`: the module from the lockfile and snapshots as they are on disk. No network,
 * no key, no write but the module's. It never applies a journal left in `.promptlock/` (only `sync`
 * does, and only its own: docs/security.md); it says one is there. Warns of each snapshot edited by hand.
 */
export function generate(options: GenerateOptions = {}): Promise<GenerateResult> {
  return callGenerate(options, {});
}

/** `generate` as an entry point calls it: warns of each snapshot edited by hand. */
export async function callGenerate(options: GenerateOptions, caller: Caller): Promise<GenerateResult> {
  const config = caller.config ?? (await loadProject(options, caller));
  const [{ generate: run, generateOptionsFor, mismatchWarning, generateEmpty, staleCompiledNotice }, { hasPendingJournal }] =
    await Promise.all([import('./sync/generate.js'), import('./store/recover-store.js')]);
  if (await hasPendingJournal(config.rootDir)) {
    const message =
      'An interrupted sync left files in .promptlock/ that only `promptlock sync` finishes or discards: built from the files as they are.';
    caller.onEvent?.({ type: 'warn', message });
  }
  if (caller.emptyWithoutLockfile && !existsSync(config.lockfilePath)) return generateEmpty(config);
  const lock = caller.runLock ? await (await import('./store/run-lock.js')).acquireRunLock(config.rootDir, caller.runLock) : undefined;
  try {
    const result = await run({ ...generateOptionsFor(config), ...(caller.cache ? { cache: caller.cache } : {}) });
    for (const name of result.mismatched) caller.onEvent?.({ type: 'warn', message: mismatchWarning(name), edited: name });
    const stale = await staleCompiledNotice(config);
    if (stale) caller.onEvent?.({ type: 'warn', message: stale });
    return result;
  } finally {
    await lock?.release();
  }
}

/** `promptlock check`: writes nothing; every problem found is in `problems` (empty: all agree). */
export function check(options: CheckOptions = {}): Promise<CheckResult> {
  return callCheck(options, {});
}

/** `check` as an entry point calls it. */
export async function callCheck(options: CheckOptions, caller: Caller): Promise<CheckResult> {
  const { config, connect } = await projectOf(options, caller);
  const [{ check: run }, { staleCompiledNotice }] = await Promise.all([import('./sync/check.js'), import('./sync/generate.js')]);
  const result = await run({ config, remote: Boolean(options.remote), connect, typecheck: options.typecheck !== false });
  const stale = await staleCompiledNotice(config);
  if (stale) caller.onEvent?.({ type: 'warn', message: stale });
  return result;
}

/** The prompt names `diff` keeps for `names` given with or without a selector. */
function diffNameFilter(names: readonly string[]): ReadonlySet<string> | undefined {
  if (names.length === 0) return undefined;
  return new Set(
    names.map((name) => {
      const parsed = parsePackageName(name);
      return parsed ? basePackageName(parsed) : name;
    }),
  );
}

/** `promptlock diff`: what `sync` would change, as line diffs of the prompt texts. Writes nothing. */
export function diff(options: DiffOptions = {}): Promise<DiffResult> {
  return callDiff(options, {});
}

/** `diff` as an entry point calls it. */
export async function callDiff(options: DiffOptions, caller: Caller): Promise<DiffResult> {
  const { config, connect } = await projectOf(options, caller);
  const [{ sync: run }, { diffPrompts, formatDiffMarkdown, formatDiffText }] = await Promise.all([
    import('./sync/sync.js'),
    import('./sync/diff-prompts.js'),
  ]);
  const names = options.names ?? [];
  const result = await run({ config, connect, dryRun: true, ...(names.length ? { names } : {}) });
  const changes = diffPrompts(result.before, result.after, diffNameFilter(names), result.breaking);
  return { changes, text: formatDiffText(changes), markdown: formatDiffMarkdown(changes) };
}

/** What `promptlock which` found (src/history/which.ts). */
export type { WhichResult };

/**
 * `promptlock which`: the commits whose lockfile holds the reviewed text a trace names (its
 * integrity, or a prompt and version), and the pull request's body that locked it (docs/traces.md).
 */
export async function which(query: string, options: ProjectOptions = {}, caller: Caller = {}): Promise<WhichResult> {
  const config = caller.config ?? (await loadProject(options, caller));
  const { whichCommits } = await import('./history/which.js');
  return whichCommits(query, { lockfilePath: config.lockfilePath });
}

/**
 * `promptlock mcp`: the locked prompts as an MCP prompt server on `input`/`output` (stdio),
 * following the store; each config edit is loaded as the first config was (docs/mcp.md).
 */
export async function mcp(
  options: ProjectOptions,
  settings: Omit<McpServerOptions, 'loadConfig'>,
  caller: Caller = {},
): Promise<McpServerHandle> {
  const { startMcpServer } = await import('./mcp/mcp-server.js');
  return startMcpServer({ ...settings, loadConfig: () => loadProject(options, caller) });
}

/** What `watch` takes besides the project: see WatchOptions (src/watch/watch.ts). */
export type WatchSettings = Pick<WatchOptions, 'intervalSeconds' | 'limitPerMinute' | 'poll' | 'settings' | 'log'>;

/**
 * `promptlock watch`, and the bundler plugin in dev: regenerates on local changes and polls the
 * service, each through this door (`callGenerate`, `callSync`), so whatever the door does first (an
 * interrupted run finished) happens on every regenerate. Each config edit is loaded as the first
 * config was; requests retry less than a one-off sync's: the next poll is the retry, and a long
 * backoff would hold file events back and spend the request budget on an outage.
 */
export async function watch(options: ProjectOptions, settings: WatchSettings, caller: Caller = {}): Promise<WatchHandle> {
  const [{ startWatch }, { clientKey }, { createGenerateCache }] = await Promise.all([
    import('./watch/watch.js'),
    import('./api/client-options.js'),
    import('./sync/generate.js'),
  ]);
  const polling: Caller = { ...caller, retries: caller.retries ?? 2 };
  // What one regeneration keeps for the next: unchanged snapshots are neither decoded nor compiled again.
  const cache = createGenerateCache();
  // Watch warns of a snapshot edited by hand once, when it becomes so: the door's other notices only
  // (a journal an interrupted sync left, a stale compiled module).
  const notices: Caller['onEvent'] = (event) => {
    if ((event.type === 'info' || event.type === 'warn') && event.edited === undefined) caller.onEvent?.(event);
  };
  return startWatch({
    ...settings,
    loadConfig: () => loadProject(options, caller),
    connect: (config) => caller.connect?.() ?? openClient(config, polling),
    clientKey,
    generate: (config) => callGenerate({}, { config, cache, runLock: 'watch', onEvent: notices }),
    sync: (config, client, names) => callSync(names ? { names } : {}, { config, connect: async () => client }),
  });
}
