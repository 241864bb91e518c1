/**
 * Runs one command over every app of a workspace (README, "Monorepos"): each app's config is
 * loaded from its own folder, the apps run one after another over shared service clients
 * (src/workspace/shared-client.ts), and a failing app (a bad config, a service error) is recorded
 * with its name while the others still run and commit: each app's writes are its own transaction.
 */
import { loadConfig } from '../config/load-config.js';
import type { ResolvedConfig } from '../config/types.js';
import type { SyncClient } from '../sync/types.js';
import { findWorkspace, type Workspace, type WorkspaceApp } from './find-apps.js';
import { createSharedClients, type OpenClient } from './shared-client.js';

type AppOutcome<T> = { app: WorkspaceApp; ok: true; value: T } | { app: WorkspaceApp; ok: false; error: unknown };

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
}

export interface WorkspaceRun<T> {
  workspace: Workspace;
  outcomes: AppOutcome<T>[];
  /** Requests sent to the service, all apps together. */
  requests: number;
}

export async function runWorkspace<T>(options: RunWorkspaceOptions<T>): Promise<WorkspaceRun<T>> {
  const workspace = await findWorkspace(options.cwd);
  const clients = createSharedClients(options.open);
  const outcomes: AppOutcome<T>[] = [];
  try {
    for (const app of workspace.apps) {
      options.onApp?.(app);
      let outcome: AppOutcome<T>;
      try {
        // From the root, so a message names the file as apps/a/prompts.config.json.
        const config = await loadConfig({ cwd: workspace.root, configPath: app.configPath, ...(options.env ? { env: options.env } : {}) });
        outcome = { app, ok: true, value: await options.run(app, config, clients.connector(config)) };
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
