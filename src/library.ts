/**
 * The programmatic API (README, "Programmatic API"): `sync`, `generate`, `check` and `diff` find
 * and load the config as the CLI does (from `cwd`, or the file `config` names), take the API key
 * from `env`, and return what the CLI reports. They never print and never exit: failures are the
 * named errors of src/errors.ts, with the exit code the CLI would use in `exitCode`.
 */

import type { ResolvedConfig } from './config/types.js';
import { basePackageName, parsePackageName } from './package-name.js';
import type { PromptDiff } from './sync/diff-prompts.js';
import type { GenerateResult } from './sync/generate.js';
import type { SyncEvent, SyncResult } from './sync/types.js';

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
  /** Progress: the phases (list, fetch, write) and each prompt done. */
  onEvent?: ((event: SyncEvent) => void) | undefined;
}

export interface GenerateOptions extends ProjectOptions {
  /** Rebuild even when the module's recorded inputs match the lockfile. */
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

export type { GenerateResult, PromptDiff, SyncEvent, SyncResult };

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

/** What `check` found: every problem as the CLI prints it (empty: all agree). */
export interface CheckResult {
  problems: string[];
  checked: number;
}

async function load(options: ProjectOptions): Promise<ResolvedConfig> {
  const { loadConfig } = await import('./config/load-config.js');
  return loadConfig({
    cwd: options.cwd ?? process.cwd(),
    ...(options.config ? { configPath: options.config } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
}

function connector(config: ResolvedConfig) {
  return async () => {
    const { createClient, clientOptionsFor } = await import('./api/index.js');
    return createClient(clientOptionsFor(config));
  };
}

/** `promptlock sync`: resolves what the config asks for, fetches what changed, commits snapshots, lockfile and module. */
export async function sync(options: SyncOptions = {}): Promise<SyncResult> {
  const config = await load(options);
  const { sync: run } = await import('./sync/sync.js');
  return run({
    config,
    connect: connector(config),
    ...(options.names ? { names: options.names } : {}),
    frozen: Boolean(options.frozen),
    ...(options.withFiles !== undefined ? { withFiles: options.withFiles } : {}),
    ...(options.renameExports ? { renameExports: true } : {}),
    ...(options.refetch ? { refetch: true } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
}

/**
 * `promptlock sync --recursive`: syncs every app of the workspace (README, "Monorepos") over one
 * shared client that lists once and fetches each prompt version once for the run. An app that
 * fails is in `apps` with its error; the others commit. Throws ConfigError only when there is no
 * workspace, or no app in it.
 */
export async function syncWorkspace(options: SyncWorkspaceOptions = {}): Promise<SyncWorkspaceResult> {
  const [{ runWorkspace }, { sync: run }] = await Promise.all([import('./workspace/run-workspace.js'), import('./sync/sync.js')]);
  const done = await runWorkspace({
    cwd: options.cwd ?? process.cwd(),
    ...(options.env ? { env: options.env } : {}),
    open: (config) => connector(config)(),
    run: (_app, config, connect) =>
      run({
        config,
        connect,
        frozen: Boolean(options.frozen),
        ...(options.withFiles !== undefined ? { withFiles: options.withFiles } : {}),
        ...(options.renameExports ? { renameExports: true } : {}),
        ...(options.refetch ? { refetch: true } : {}),
      }),
  });
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

/** `promptlock generate`: the module from the lockfile and snapshots. No network, no key. */
export async function generate(options: GenerateOptions = {}): Promise<GenerateResult> {
  const config = await load(options);
  const [{ generate: run, generateOptionsFor }, { finishInterruptedRun }, { storeFilesOf }] = await Promise.all([
    import('./sync/generate.js'),
    import('./store/finish-interrupted-run.js'),
    import('./sync/store-files.js'),
  ]);
  await finishInterruptedRun(storeFilesOf(config), 'generate');
  return run({ ...generateOptionsFor(config), force: Boolean(options.force) });
}

/** `promptlock check`: writes nothing; every problem found is in `problems` (empty: all agree). */
export async function check(options: CheckOptions = {}): Promise<CheckResult> {
  const config = await load(options);
  const { check: run, describeProblem } = await import('./sync/check.js');
  const result = await run({ config, remote: Boolean(options.remote), connect: connector(config), typecheck: options.typecheck !== false });
  return { problems: result.problems.map(describeProblem), checked: result.checked };
}

/** The prompt names `diff` keeps for `names` given with or without a selector. */
export function diffNameFilter(names: readonly string[]): ReadonlySet<string> | undefined {
  if (names.length === 0) return undefined;
  return new Set(
    names.map((name) => {
      const parsed = parsePackageName(name);
      return parsed ? basePackageName(parsed) : name;
    }),
  );
}

/** `promptlock diff`: what `sync` would change, as line diffs of the prompt texts. Writes nothing. */
export async function diff(options: DiffOptions = {}): Promise<DiffResult> {
  const config = await load(options);
  const [{ sync: run }, { diffPrompts, formatDiffMarkdown, formatDiffText }] = await Promise.all([
    import('./sync/sync.js'),
    import('./sync/diff-prompts.js'),
  ]);
  const names = options.names ?? [];
  const result = await run({ config, connect: connector(config), dryRun: true, ...(names.length ? { names } : {}) });
  const changes = diffPrompts(result.before, result.after, diffNameFilter(names));
  return { changes, text: formatDiffText(changes), markdown: formatDiffMarkdown(changes) };
}
