import { LockfileError } from '../errors.js';
import type { Limits } from '../limits.js';
import type { Prompt } from '../types.js';
import type { StoreView } from './commit-changes.js';
import { integrityOf } from './integrity.js';
import { type LockEntry, type Lockfile } from './lockfile-format.js';
import { decodeUnconflictedLockfile } from './lockfile-merge.js';
import { contextFilePath, snapshotPath } from './paths.js';
import { decodeSnapshot, snapshotIntegrity } from './snapshot-format.js';

/** The lockfile, or undefined when there is none yet. Conflict markers: an error saying to run `promptlock sync`. */
export async function readLockfile(view: StoreView, lockfilePath: string): Promise<Lockfile | undefined> {
  const bytes = await view.readFile(lockfilePath);
  return bytes === undefined ? undefined : decodeUnconflictedLockfile(bytes.toString('utf8'), lockfilePath);
}

export type SnapshotState =
  | { ok: true; prompt: Prompt }
  | { ok: false; problem: string; prompt?: Prompt };

/**
 * Reads the snapshot of a locked prompt and checks it against the lockfile: present, parseable,
 * matching integrity, and (when `withFiles`) every locked context file present and intact.
 */
export async function readLockedSnapshot(
  view: StoreView,
  snapshotsDir: string,
  name: string,
  entry: LockEntry,
  withFiles = true,
  /** The config's limits on a snapshot; defaults when absent. */
  limits?: Readonly<Limits>,
): Promise<SnapshotState> {
  const file = snapshotPath(snapshotsDir, name);
  const bytes = await view.readFile(file);
  if (bytes === undefined) return { ok: false, problem: `snapshot ${file} is missing` };
  let prompt: Prompt;
  try {
    prompt = decodeSnapshot(bytes.toString('utf8'), file, limits);
  } catch (error) {
    return { ok: false, problem: (error as LockfileError).message };
  }
  const actual = snapshotIntegrity(prompt);
  if (actual !== entry.integrity) {
    return { ok: false, prompt, problem: `snapshot ${file} does not match the lockfile (integrity ${actual}, locked ${entry.integrity})` };
  }
  if (withFiles) {
    for (const [id, locked] of Object.entries(entry.files ?? {})) {
      let filePath: string;
      try {
        filePath = contextFilePath(snapshotsDir, name, locked.path);
      } catch (error) {
        return { ok: false, prompt, problem: (error as Error).message };
      }
      const content = await view.readFile(filePath);
      if (content === undefined) return { ok: false, prompt, problem: `context file ${filePath} (${id}) is missing` };
      if (integrityOf(content) !== locked.integrity) {
        return { ok: false, prompt, problem: `context file ${filePath} (${id}) does not match the lockfile` };
      }
      if (content.byteLength !== locked.size) {
        return { ok: false, prompt, problem: `context file ${filePath} (${id}) has ${content.byteLength} bytes, the lockfile says ${locked.size}` };
      }
    }
  }
  return { ok: true, prompt };
}
