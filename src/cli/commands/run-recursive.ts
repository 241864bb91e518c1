/**
 * `--recursive` for sync, generate, check and diff (docs/cli.md, "Monorepos"): the command runs in every
 * app of the workspace with one shared client, and reports per app: a heading and the app's own
 * lines beneath it, then one line for the whole run; with --json one array, an entry per app.
 * Exit 1 when any app failed (its config included); 3 when none failed but a sync skipped a refused
 * prompt; 2 only for the command's own usage errors.
 */
import type { ConfigConflictResolution } from '../../config/edit/resolve-conflict.js';
import type { ResolvedConfig } from '../../config/types.js';
import { ConfigError, SKIPPED_EXIT_CODE } from '../../errors.js';
import { eachApp } from '../../library.js';
import type { SyncClient } from '../../sync/types.js';
import { pluralise } from '../../util/pluralise.js';
import type { WorkspaceApp } from '../../workspace/find-apps.js';
import type { AppOutcome } from '../../workspace/run-workspace.js';
import { callerOf, describeConflictResolution } from '../caller.js';
import type { CommandContext } from '../context.js';
import { jsonFailure, reportError } from '../format-error.js';
import type { Logger } from '../logger.js';

/** One app's run of the command: prints through `ctx` and returns its exit code. */
export type RunApp = (ctx: CommandContext, config: ResolvedConfig, connect: () => Promise<SyncClient>) => Promise<number>;

export async function runRecursive(ctx: CommandContext, command: string, runApp: RunApp): Promise<number> {
  if (ctx.globals.config) {
    throw new ConfigError('--recursive finds the config of each app: it cannot be combined with --config.', {
      hint: 'Leave out --config, or leave out --recursive to run one project.',
    });
  }
  const { colors } = ctx.logger;
  const results: Array<{ app: WorkspaceApp; exitCode: number; json?: unknown }> = [];
  const each = {
    cwd: ctx.io.cwd,
    env: ctx.io.env,
    // sync resolves an app's config conflicted inside its prompts list, as it does for one project.
    ...(command.startsWith('sync')
      ? {
          onConflictResolved: (app: WorkspaceApp, r: ConfigConflictResolution) =>
            ctx.logger.warn(`${app.name}: ${describeConflictResolution(r, ctx.io.cwd)}`),
        }
      : {}),
    onApp: (app: WorkspaceApp) => ctx.logger.info(`${colors.bold(app.name)} ${colors.dim(`(${app.relativeDir})`)}`),
    // Failed before it ran (its config): reported under its heading all the same.
    onOutcome: (outcome: AppOutcome<{ exitCode: number; json: unknown }>) =>
      results.push({
        app: outcome.app,
        ...(outcome.ok
          ? outcome.value
          : failure(
              appLogger(ctx.logger, outcome.app, () => undefined),
              outcome.error,
            )),
      }),
  };
  const run = await eachApp(each, callerOf(ctx), async (app, config, connect) => {
    // A key from this app's .env files is as secret as one from the environment.
    ctx.logger.addSecret(config.apiKey);
    let json: unknown;
    const appCtx = appContext(ctx, app, (value) => (json = value));
    try {
      return { exitCode: await runApp(appCtx, config, connect), json };
    } catch (error) {
      return failure(appCtx.logger, error);
    }
  });
  function failure(logger: Logger, error: unknown) {
    const exitCode = reportError(error, logger, ctx.globals.verbose);
    return { exitCode, json: jsonFailure(command, exitCode, error) };
  }
  // An app whose sync skipped a refused prompt landed the rest: not failed, but the run says so (exit 3).
  const failed = results.filter((r) => r.exitCode !== 0 && r.exitCode !== SKIPPED_EXIT_CODE);
  const skipped = results.some((r) => r.exitCode === SKIPPED_EXIT_CODE);
  if (ctx.globals.json) {
    ctx.logger.json(
      results.map((r) => ({
        app: r.app.name,
        dir: r.app.relativeDir,
        exitCode: r.exitCode,
        ...(r.json && typeof r.json === 'object' ? r.json : {}),
        ...(r.exitCode !== 0 && r.exitCode !== SKIPPED_EXIT_CODE ? { ok: false } : {}),
      })),
    );
  } else {
    const requests = run.requests > 0 ? ` (${pluralise(run.requests, 'request')} to the service in all)` : '';
    const line = `${command} --recursive: ${pluralise(results.length, 'app')}, ${results.length - failed.length} ok, ${failed.length} failed${requests}`;
    if (failed.length === 0) ctx.logger.success(line);
    else ctx.logger.error(`${line}: ${failed.map((r) => `${r.app.name} (${r.app.relativeDir})`).join(', ')}`);
  }
  return failed.length > 0 ? 1 : skipped ? SKIPPED_EXIT_CODE : 0;
}

/** Names pick prompts of one config: across apps they would mean different things. */
export function rejectNames(names: readonly string[] | undefined): void {
  if (names && names.length > 0) {
    throw new ConfigError(`--recursive runs every app's whole config: it takes no prompt names (got ${names.join(', ')}).`, {
      hint: 'Leave out the names, or run the command without --recursive in the app folder.',
    });
  }
}

/** The command's context inside one app: its folder, its own config, its lines under its heading. */
function appContext(ctx: CommandContext, app: WorkspaceApp, json: (value: unknown) => void): CommandContext {
  return {
    ...ctx,
    io: { ...ctx.io, cwd: app.dir },
    globals: { ...ctx.globals, config: undefined },
    logger: appLogger(ctx.logger, app, json),
  };
}

/** Lines indented under the app's heading; warnings and errors carry the app's name. */
function appLogger(parent: Logger, app: WorkspaceApp, json: (value: unknown) => void): Logger {
  const indent = (message: string) => message.replace(/^/gm, '  ');
  return {
    ...parent,
    info: (message) => parent.info(indent(message)),
    success: (message) => parent.info(indent(`${parent.colors.green('✔')} ${message}`)),
    warn: (message) => parent.warn(`${app.name}: ${message}`),
    error: (message) => parent.error(`${app.name}: ${message}`),
    verbose: (message) => parent.verbose(indent(message)),
    result: (text) => parent.result(`${app.name} (${app.relativeDir}):\n${text}`),
    json,
  };
}
