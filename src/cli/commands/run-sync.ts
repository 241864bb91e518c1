import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { ResolvedConfig } from '../../config/types.js';
import { ConfigError, SKIPPED_EXIT_CODE } from '../../errors.js';
import { callSync, loadProject } from '../../library.js';
import { apiKeyFromEnv, redact } from '../../secrets.js';
import type { MergeDecision } from '../../store/lockfile-merge.js';
import { describeBreaking } from '../../sync/breaking-change.js';
import { changeList } from '../../sync/change-list.js';
import type { AppTypecheck } from '../../sync/compile-errors.js';
import type { PullRequestReport, SyncClient, SyncResult } from '../../sync/types.js';
import { pluralise } from '../../util/pluralise.js';
import { writeFileSafely } from '../../util/write-file.js';
import { callerOf, describeConflictResolution, projectOf } from '../caller.js';
import type { CommandContext } from '../context.js';
import { printPlaceholderNotes } from '../placeholder-notes.js';
import { createProgress } from '../progress.js';

export interface SyncCommandOptions {
  names?: string[];
  frozen?: boolean;
  withFiles?: boolean;
  renameExports?: boolean;
  /** Every app of the workspace (docs/cli.md, "Monorepos"). */
  recursive?: boolean;
  /** Fetch every prompt, even those the list proves unchanged. */
  refetch?: boolean;
  /** Write the pull-request body for what changed to this file (docs/ci.md). */
  report?: string;
  /** After a breaking change, type-check the app and list its compile errors (docs/ci.md). */
  typecheck?: boolean;
  /** `remove`: drop what the config no longer asks for, nothing else. */
  removeUnrequested?: boolean;
}

function summary(result: SyncResult, rootDir: string, report: PullRequestReport) {
  const rel = (file: string) => path.relative(rootDir, file).split(path.sep).join('/');
  return {
    ok: true,
    prompts: result.prompts,
    added: result.added,
    changed: result.changed,
    removed: result.removed,
    renamed: result.renamed,
    unchanged: result.unchanged,
    breaking: result.breaking.map(({ name, change }) => ({ name, ...change, message: describeBreaking(change) })),
    skipped: result.skipped,
    placeholders: result.placeholders,
    warnings: result.warnings,
    fetched: result.fetched,
    savedByList: result.savedByList,
    listWithoutVersions: result.listWithoutVersions,
    written: result.written.map(rel),
    deleted: result.deleted.map(rel),
    restored: result.restored.map((r) => ({ ...r, file: rel(r.file) })),
    requests: result.requests,
    retries: result.retries,
    rateLimited: result.status429,
    durationMs: result.durationMs,
    ...(result.resolvedConflict ? { resolvedConflict: result.resolvedConflict } : {}),
    ...(result.conflictedModule ? { conflictedModule: result.conflictedModule.map(rel) } : {}),
    /** The pull-request title of what changed (`sync --report`), empty when nothing did. */
    title: report.title,
    ...(result.typecheck ? { typecheck: result.typecheck } : {}),
  };
}

/**
 * `--report <file>`: the body when something changed; no file (a stale one removed) when nothing
 * did, so a workflow never opens a pull request from an old body. `GITHUB_OUTPUT`: `changed`,
 * `breaking`, `title` for the steps after.
 */
async function publishReport(ctx: CommandContext, report: PullRequestReport, file: string | undefined): Promise<void> {
  if (file !== undefined) {
    const target = path.resolve(ctx.io.cwd, file);
    if (report.body) {
      // The key never reaches a file (prompts holding it are refused; this masks it all the same).
      // Never through a link: a checkout may hold one at that name (src/util/write-file.ts).
      await writeFileSafely(target, redact(report.body, [apiKeyFromEnv(ctx.io.env)]), { refusal: ConfigError });
      ctx.logger.info(`Wrote the pull-request body to ${path.relative(ctx.io.cwd, target) || target}`);
    } else await rm(target, { force: true });
  }
  const outputs = ctx.io.env.GITHUB_OUTPUT;
  if (outputs) {
    const { writeStepOutputs } = await import('../github.js');
    await writeStepOutputs(outputs, {
      changed: String(report.changed.length > 0),
      breaking: String(report.breaking.length > 0),
      title: report.title,
    });
  }
}

/** `promptlock sync` (also run by `add` after it edits the config). Returns the exit code. */
export async function runSyncCommand(ctx: CommandContext, options: SyncCommandOptions = {}): Promise<number> {
  if (options.recursive) {
    const { runRecursive, rejectNames } = await import('./run-recursive.js');
    if (options.report !== undefined) {
      throw new ConfigError('sync --report writes one pull-request body for one project; it does not take --recursive.', {
        hint: 'Run `promptlock sync --report <file>` in each app, or sync the workspace without --report.',
      });
    }
    rejectNames(options.names);
    return runRecursive(ctx, options.frozen ? 'sync --frozen' : 'sync', (appCtx, config, connect) =>
      syncProject(appCtx, config, connect, options),
    );
  }
  const config = await loadProject(projectOf(ctx), {
    ...callerOf(ctx),
    onConflictResolved: (resolution) => ctx.logger.warn(describeConflictResolution(resolution, ctx.io.cwd)),
  });
  return syncProject(ctx, config, undefined, options);
}

async function syncProject(
  ctx: CommandContext,
  config: ResolvedConfig,
  connect: (() => Promise<SyncClient>) | undefined,
  options: SyncCommandOptions,
): Promise<number> {
  // `--frozen` fetches only what is missing on disk: it verifies every prompt, it fetches few or none.
  const progress = await createProgress(ctx, options.frozen ? 'Verifying' : 'Fetching');
  // The report is built only when something reads it: `--report`, a GitHub step, `--json`'s title.
  const publish = options.report !== undefined || Boolean(ctx.io.env.GITHUB_OUTPUT);
  let result: SyncResult;
  try {
    result = await callSync(
      {
        env: ctx.io.env,
        names: options.names,
        frozen: options.frozen,
        withFiles: options.withFiles || undefined,
        renameExports: options.renameExports,
        refetch: options.refetch,
        removeUnrequested: options.removeUnrequested,
        onEvent: progress.onEvent,
        report: publish || ctx.globals.json,
        typecheck: options.typecheck,
      },
      { ...callerOf(ctx, progress.onWait), config, connect },
    );
  } finally {
    progress.stop();
  }
  const { report, typecheck } = result;
  if (report && publish) await publishReport(ctx, report, options.report);
  // A prompt refused and skipped: what the config asks for did not all land (docs/cli.md).
  const exitCode = result.skipped.some((skip) => skip.refused) ? SKIPPED_EXIT_CODE : 0;
  if (report && ctx.globals.json) {
    ctx.logger.json({ command: options.frozen ? 'sync --frozen' : 'sync', ...summary(result, config.rootDir, report) });
    return exitCode;
  }
  const { colors } = ctx.logger;
  if (result.resolvedConflict) {
    const { hunks, decisions } = result.resolvedConflict;
    ctx.logger.info(
      `Merged the git conflict in ${path.relative(config.rootDir, config.lockfilePath)} (${pluralise(hunks, 'conflict')}): every version either side locked is kept`,
    );
    for (const d of decisions) ctx.logger.info(`  ${d.name}  ${d.version} (${describeDecision(d)})`);
  }
  for (const file of result.conflictedModule ?? []) {
    ctx.logger.info(
      `Rewrote ${path.relative(config.rootDir, file).split(path.sep).join('/')}, which had git conflict markers, from the lockfile and snapshots`,
    );
  }
  const seconds = (result.durationMs / 1000).toFixed(1);
  const touched = result.added.length + result.changed.length + result.removed.length;
  for (const warning of result.warnings) ctx.logger.warn(warning);
  const saved = result.savedByList ? `, ${pluralise(result.savedByList, 'get')} saved by the list` : '';
  // Why a sync of unchanged prompts cost a get each (docs/performance.md).
  const why = result.listWithoutVersions ? "; the service's list names no versions, so each prompt was fetched" : '';
  const requests = `${pluralise(result.requests, 'request')}${result.retries ? `, ${pluralise(result.retries, 'retry', 'retries')}` : ''}${saved}${why}`;
  if (touched === 0 && result.written.length === 0 && result.deleted.length === 0) {
    ctx.logger.success(`${pluralise(result.prompts, 'prompt')} up to date, no file changed (${requests}, ${seconds} s)`);
    printSkipped(ctx, result);
    return exitCode;
  }
  if (options.frozen) printRestored(ctx, result, config, `${seconds} s`, requests);
  else {
    ctx.logger.success(
      `Synced ${pluralise(result.prompts, 'prompt')} in ${seconds} s: ${result.added.length} added, ${result.changed.length} changed, ${result.removed.length} removed, ${result.unchanged} unchanged (${requests})`,
    );
    // Breaking changes first, marked as `diff` marks them: callers of these functions no longer compile.
    const sign = (kind: string, text: string) =>
      kind === 'added' ? colors.green(text) : kind === 'changed' ? colors.yellow(text) : colors.red(text);
    for (const { text, breaking } of changeList(result, { sign, mark: colors.red, gap: '  ' })) {
      ctx.logger.info(`  ${text}`);
      if (breaking) ctx.logger.info(`      breaking: ${breaking}`);
    }
  }
  for (const r of result.renamed) ctx.logger.warn(`${r.name} is now exported as ${r.to} (was ${r.from}): update its imports`);
  printPlaceholderNotes(ctx, result.placeholders);
  if (typecheck) printTypecheck(ctx, typecheck);
  else if (options.typecheck && touched > 0) ctx.logger.info("No prompt function's parameter changed: the app was not type-checked.");
  printSkipped(ctx, result);
  ctx.logger.verbose(`wrote ${result.written.length} files, deleted ${result.deleted.length}`);
  return exitCode;
}

/**
 * `sync --frozen`'s summary: the lockfile is law, so nothing is added or changed; each file put
 * back as it locks it is named, with why, and so is a module rebuilt from the store.
 */
function printRestored(ctx: CommandContext, result: SyncResult, config: ResolvedConfig, took: string, requests: string): void {
  const rel = (file: string) => path.relative(config.rootDir, file).split(path.sep).join('/');
  const restored =
    result.restored.length > 0 ? ` and restored ${pluralise(result.restored.length, 'file')} as the lockfile locks them` : '';
  ctx.logger.success(`Verified ${pluralise(result.prompts, 'prompt')} in ${took}${restored} (${requests})`);
  for (const r of result.restored) {
    const why = r.reason === 'missing' ? 'it was missing' : 'it did not match the lockfile: edited by hand?';
    ctx.logger.info(`  restored ${rel(r.file)}  ${r.name} ${r.version} (${why})`);
  }
  const put = new Set([...result.restored.map((r) => r.file), config.lockfilePath, ...(result.conflictedModule ?? [])]);
  for (const file of result.written.filter((f) => !put.has(f))) ctx.logger.info(`  rewrote ${rel(file)} from the lockfile and snapshots`);
}

/** The app's type-check after a breaking sync: its errors, file and line first, as the pull request lists them. */
function printTypecheck(ctx: CommandContext, typecheck: AppTypecheck): void {
  if (typecheck.status === 'skipped') ctx.logger.warn(`The app was not type-checked: ${typecheck.reason}.`);
  else if (typecheck.status === 'passed') ctx.logger.success(`${typecheck.command} passes after this sync: no call site needs a change`);
  else {
    const { errors } = typecheck;
    const why = typecheck.timedOut ? 'timed out' : `failed (exit code ${typecheck.exitCode})`;
    ctx.logger.warn(
      errors.length > 0
        ? `${typecheck.command} fails after this sync with ${pluralise(errors.length, 'error')}: the call sites to update`
        : `${typecheck.command} ${why} after this sync; its last lines:`,
    );
    if (errors.length === 0) for (const line of typecheck.lastLines) ctx.logger.info(`  ${line}`);
    for (const e of errors) ctx.logger.info(`  ${e.file === undefined ? '' : `${e.file}:${e.line}:${e.column} `}${e.code}: ${e.message}`);
  }
}

/** Why a merged lockfile keeps a version: `only ours locked it`, `theirs, over v2: higher version`. */
function describeDecision(d: MergeDecision): string {
  if (d.reason === 'ours only' || d.reason === 'theirs only') return `only ${d.kept} locked it`;
  return `${d.kept}${d.other ? `, over ${d.other}` : ''}: ${d.reason}`;
}

/**
 * One line per prompt a glob matched and the sync left out: a package with only a draft, or a
 * prompt refused (a warning, with the field and line, and the version it stays locked at).
 */
function printSkipped(ctx: CommandContext, result: SyncResult): void {
  for (const skip of result.skipped) {
    const where = skip.field ? ` (${skip.field}${skip.line === undefined ? '' : ` line ${skip.line}`})` : '';
    const kept = skip.kept ? `; it stays locked at ${skip.kept}` : '';
    const line = `skipped ${skip.name}${where}: ${skip.reason}${kept}${skip.fix ? `; ${skip.fix}` : ''}`;
    if (skip.refused) ctx.logger.warn(line);
    else ctx.logger.info(line);
  }
}
