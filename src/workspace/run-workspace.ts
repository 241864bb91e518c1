/**
 * Runs one command over every app of a workspace (docs/cli.md, "Monorepos"): each app's config is
 * loaded from its own folder, the apps run one after another over shared service clients
 * (src/workspace/shared-client.ts), and a failing app (a bad config, a service error) is recorded
 * with its name while the others still run and commit: each app's writes are its own transaction.
 * Apps whose stores overlap are refused before any runs.
 */
import path from 'node:path';
import type { ConfigConflictResolution } from '../config/edit/resolve-conflict.js';
import { loadConfig } from '../config/load-config.js';
import type { ResolvedConfig } from '../config/types.js';
import { ConfigError } from '../errors.js';
import type { SyncClient } from '../sync/types.js';
import { findWorkspace, type Workspace, type WorkspaceApp } from './find-apps.js';
import { createSharedClients, type OpenClient } from './shared-client.js';

export type AppOutcome<T> = { app: WorkspaceApp; ok: true; value: T } | { app: WorkspaceApp; ok: false; error: unknown };

export interface RunWorkspaceOptions<T> {
  /** Where the search for the workspace root starts (upward). */
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Opens a real client; called once per distinct service (address, key, timeout, limits). */
  open: OpenClient;
  /** Called before an app runs (the CLI prints its heading). */
  onApp?: (app: WorkspaceApp) => void;
  /** Called when an app has run (the CLI reports a failure at once, under its heading). */
  onOutcome?: (outcome: AppOutcome<T>) => void;
  run: (app: WorkspaceApp, config: ResolvedConfig, connect: () => Promise<SyncClient>) => Promise<T>;
  /** Set by sync: an app's config with git conflict markers in its prompts list is resolved (see loadConfig). */
  onConflictResolved?: (app: WorkspaceApp, resolution: ConfigConflictResolution) => void;
}

export interface WorkspaceRun<T> {
  workspace: Workspace;
  outcomes: AppOutcome<T>[];
  /** Requests sent to the service, all apps together. */
  requests: number;
}

export async function runWorkspace<T>(options: RunWorkspaceOptions<T>): Promise<WorkspaceRun<T>> {
  const workspace = await findWorkspace(options.cwd);
  // Every config first: apps whose stores overlap are refused before any of them runs.
  const loaded = new Map<WorkspaceApp, { config: ResolvedConfig } | { error: unknown }>();
  for (const app of workspace.apps) {
    try {
      // From the root, so a message names the file as apps/a/prompts.config.json.
      const config = await loadConfig({
        cwd: workspace.root,
        configPath: app.configPath,
        ...(options.env ? { env: options.env } : {}),
        ...(options.onConflictResolved
          ? { onConflictResolved: (r: ConfigConflictResolution) => options.onConflictResolved?.(app, r) }
          : {}),
      });
      loaded.set(app, { config });
    } catch (error) {
      loaded.set(app, { error });
    }
  }
  refuseOverlappingStores(workspace, loaded);
  const clients = createSharedClients(options.open);
  const outcomes: AppOutcome<T>[] = [];
  try {
    for (const app of workspace.apps) {
      options.onApp?.(app);
      const entry = loaded.get(app)!;
      let outcome: AppOutcome<T>;
      try {
        if ('error' in entry) throw entry.error;
        outcome = { app, ok: true, value: await options.run(app, entry.config, clients.connector(entry.config)) };
      } catch (error) {
        outcome = { app, ok: false, error };
      }
      outcomes.push(outcome);
      options.onOutcome?.(outcome);
    }
  } finally {
    await clients.close();
  }
  return { workspace, outcomes, requests: clients.totals().requests };
}

/**
 * A sync prunes every snapshot its own app no longer asks for: a snapshots folder that is, or
 * holds, another app's store would delete that app's files on every run (and report "0 removed").
 * Two apps writing one lockfile or one module would overwrite each other. Both are refused,
 * naming both apps.
 */
function refuseOverlappingStores(workspace: Workspace, loaded: Map<WorkspaceApp, { config: ResolvedConfig } | { error: unknown }>): void {
  const apps = [...loaded].flatMap(([app, entry]) => ('config' in entry ? [{ app, config: entry.config }] : []));
  const rel = (file: string) => path.relative(workspace.root, file).split(path.sep).join('/') || '.';
  const within = (dir: string, file: string) => file === dir || file.startsWith(dir + path.sep);
  for (const x of apps) {
    for (const y of apps) {
      if (x === y) continue;
      const clash = within(x.config.snapshotsDir, y.config.snapshotsDir)
        ? `its snapshots folder ${rel(x.config.snapshotsDir)} holds the snapshots folder ${rel(y.config.snapshotsDir)} of`
        : within(x.config.snapshotsDir, y.config.lockfilePath) || within(x.config.snapshotsDir, y.config.outputPath)
          ? `its snapshots folder ${rel(x.config.snapshotsDir)} holds the lockfile or module of`
          : x.config.lockfilePath === y.config.lockfilePath
            ? `its lockfile ${rel(x.config.lockfilePath)} is also the lockfile of`
            : x.config.outputPath === y.config.outputPath
              ? `its module ${rel(x.config.outputPath)} is also the module of`
              : undefined;
      if (!clash) continue;
      throw new ConfigError(
        `Apps ${x.app.name} (${x.app.relativeDir}) and ${y.app.name} (${y.app.relativeDir}) overlap: ${clash} ${y.app.name}; a sync of one would delete or overwrite the other's files.`,
        {
          hint: `Give each app a store of its own: "snapshots", "lockfile" and "output" inside its own folder (relative to its config), e.g. "snapshots": "prompts".`,
        },
      );
    }
  }
}
