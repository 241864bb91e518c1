import { relative } from 'node:path';
import { configRule } from '../../config/config-text.js';
import { addPromptToConfig, locateConfigFile, type PromptEdit, removePromptFromConfig } from '../../config/edit/index.js';
import { parsePromptEntry } from '../../config/prompt-entry.js';
import { ConfigError, SKIPPED_EXIT_CODE } from '../../errors.js';
import { readBounded } from '../../util/read-bounded.js';
import { writeFileSafely } from '../../util/write-file.js';
import type { CommandContext } from '../context.js';
import { runSyncCommand } from './run-sync.js';

export interface EditFlags {
  sync: boolean;
}

/**
 * Syncs after an edit, reading the config file just edited, and touches only what the edit names:
 * an added prompt is synced by name (a workspace glob needs the list, so it runs a whole sync); a
 * removal drops what the config no longer asks for and keeps every other prompt as locked, with no
 * request (src/sync/resolve-removal.ts). When the sync fails, the config goes back to what it was:
 * `add @acme/typo` must not leave an entry behind that makes every later sync fail.
 */
async function syncAfterEdit(ctx: CommandContext, edit: PromptEdit, original: Buffer): Promise<number> {
  const removal = edit.action === 'removed';
  const byName = !removal && parsePromptEntry(edit.entry)?.package !== '*';
  const restore = async () => {
    if (!edit.changed) return;
    await writeFileSafely(edit.configPath, original, { refusal: ConfigError });
    ctx.logger.info(`Restored ${relative(ctx.io.cwd, edit.configPath) || edit.configPath} as it was, since the sync failed.`);
  };
  let code: number;
  try {
    const syncCtx: CommandContext = { ...ctx, globals: { ...ctx.globals, config: edit.configPath } };
    code = await runSyncCommand(syncCtx, removal ? { removeUnrequested: true } : byName ? { names: [edit.entry] } : {});
  } catch (error) {
    await restore();
    throw error;
  }
  // A glob's sync that skipped a refused prompt landed the rest: the entry stays.
  if (code !== 0 && code !== SKIPPED_EXIT_CODE) await restore();
  return code;
}

function describeEdit(ctx: CommandContext, edit: PromptEdit): void {
  const where = relative(ctx.io.cwd, edit.configPath) || edit.configPath;
  const { logger } = ctx;
  if (edit.action === 'added') logger.success(`Added "${edit.entry}" to ${where}`);
  else if (edit.action === 'replaced') logger.success(`Replaced "${edit.previous}" with "${edit.entry}" in ${where}`);
  else if (edit.action === 'removed') logger.success(`Removed "${edit.entry}" from ${where}`);
  else logger.info(`"${edit.entry}" is already in ${where}; nothing to change`);
}

/** Shared by add and remove: edit the config, say what changed, then sync unless told not to. */
export async function runEdit(
  ctx: CommandContext,
  name: string,
  flags: EditFlags,
  edit: (configPath: string, name: string) => Promise<PromptEdit>,
): Promise<number> {
  const configPath = await locateConfigFile(ctx.io.cwd, ctx.globals.config);
  const original = await readBounded(configPath, configRule(configPath));
  if (original === undefined) throw new ConfigError(`Config file not found: ${configPath}.`);
  const result = await edit(configPath, name);
  if (!flags.sync || !result.changed) {
    describeEdit(ctx, result);
    // With a sync, the sync command prints the one --json summary; without, this is it.
    if (!flags.sync && ctx.globals.json) ctx.logger.json(result);
    if (!flags.sync) return 0;
  }
  const code = await syncAfterEdit(ctx, result, original);
  // Said once the sync succeeded: a failed sync puts the config back, so nothing was added.
  if ((code === 0 || code === SKIPPED_EXIT_CODE) && result.changed) describeEdit(ctx, result);
  return code;
}

export { addPromptToConfig, removePromptFromConfig };
