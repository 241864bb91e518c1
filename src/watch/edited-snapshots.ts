/**
 * Snapshots that no longer match their lockfile integrity, among files that just changed: a hand
 * edit. `generate` builds the module from snapshots as they are, and watch does the same, but says
 * so, because `check` will report the mismatch and the next sync that refetches the prompt will
 * replace the edit.
 */
import type { ResolvedConfig } from '../config/types.js';
import { snapshotPath } from '../store/paths.js';
import { readLockedSnapshot, readLockfile } from '../store/read-store.js';
import { openStoreView } from '../store/store-view.js';
import { storeFilesOf } from '../sync/store-files.js';

/** Names of locked prompts whose snapshot is in `files` and does not match the lockfile. */
export async function editedSnapshots(
  config: Pick<ResolvedConfig, 'rootDir' | 'lockfilePath' | 'snapshotsDir' | 'outputPath' | 'limits'>,
  files: readonly string[],
): Promise<string[]> {
  if (files.length === 0) return [];
  const view = await openStoreView(storeFilesOf(config));
  const lockfile = await readLockfile(view, config.lockfilePath);
  if (!lockfile) return [];
  const changed = new Set(files);
  const out: string[] = [];
  for (const [name, entry] of Object.entries(lockfile.prompts)) {
    if (!changed.has(snapshotPath(config.snapshotsDir, name))) continue;
    const state = await readLockedSnapshot(view, config.snapshotsDir, name, entry, false, config.limits);
    if (!state.ok) out.push(name);
  }
  return out.sort();
}
