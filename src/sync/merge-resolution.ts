/**
 * The lockfile as `sync` starts from: the file as it is, or, when it has git conflict markers,
 * both sides merged (`src/store/lockfile-merge.ts`; README.md, Troubleshooting). A merged run holds
 * every locked version: a snapshot that does not match its entry (conflicted itself, or the other
 * branch's) is fetched again at exactly the locked version, never at what a floating selector
 * answers today. Without `--frozen`, a version only one side locked is fetched that way even when its
 * snapshot is intact (`SyncInputs.confirm`): a branch could have forged both, and the service is the
 * proof; one it does not have stops the run.
 */

import { type RequestedEntry, selectorFor } from '../config/prompt-entry.js';
import type { ResolvedConfig } from '../config/types.js';
import type { StoreView } from '../store/journal.js';
import { decodeLockfile, type Lockfile } from '../store/lockfile-format.js';
import { type MergeDecision, resolveLockfileConflict } from '../store/lockfile-merge.js';
import { readLockedSnapshot } from '../store/read-store.js';

export interface ConflictResolution {
  /** Conflicts (hunks) in the lockfile. */
  hunks: number;
  /** The packages the two sides disagreed on, and which side was kept. */
  decisions: MergeDecision[];
}

export interface PreviousLockfile {
  lockfile: Lockfile | undefined;
  /** Set when the lockfile had conflict markers and was merged. */
  resolution?: ConflictResolution;
}

export async function readPreviousLockfile(
  view: StoreView,
  config: ResolvedConfig,
  entries: readonly RequestedEntry[],
): Promise<PreviousLockfile> {
  const bytes = await view.readFile(config.lockfilePath);
  if (bytes === undefined) return { lockfile: undefined };
  const text = bytes.toString('utf8');
  const merge = resolveLockfileConflict(text, config.lockfilePath, (name) => selectorFor(entries, name));
  if (!merge) return { lockfile: decodeLockfile(text, config.lockfilePath) };
  // Same version, different content on the two sides: keep the side whose snapshot is on disk.
  for (const [name, alternative] of merge.ties) {
    const chosen = merge.lockfile.prompts[name]!;
    if ((await readLockedSnapshot(view, config.snapshotsDir, name, chosen, false)).ok) continue;
    if ((await readLockedSnapshot(view, config.snapshotsDir, name, alternative.entry, false)).ok) {
      merge.lockfile.prompts[name] = alternative.entry;
      const decision = merge.decisions.find((d) => d.name === name)!;
      decision.kept = alternative.side;
    }
  }
  return { lockfile: merge.lockfile, resolution: { hunks: merge.hunks, decisions: merge.decisions } };
}

/** The selector that asks for exactly a locked version (`v0` is the draft). */
export function exactSelector(version: string): string {
  return version === 'v0' ? 'draft' : version;
}

/**
 * A merge can bring two prompts locked under the same export name (each branch added one whose
 * slug makes it). The prompt whose package name sorts first keeps the name; the other loses its
 * recorded name, so the naming rules give it a new one that the summary reports as a rename
 * (README, "The generated module"). Returns the lockfile without those names, and what was dropped.
 */
export function dropClashingExportNames(lockfile: Lockfile): { lockfile: Lockfile; dropped: Array<{ name: string; exportName: string }> } {
  const owner = new Map<string, string>();
  const dropped: Array<{ name: string; exportName: string }> = [];
  const prompts = { ...lockfile.prompts };
  for (const name of Object.keys(prompts).sort()) {
    const { exportName, ...rest } = prompts[name]!;
    if (exportName === undefined) continue;
    if (!owner.has(exportName)) {
      owner.set(exportName, name);
      continue;
    }
    prompts[name] = rest;
    dropped.push({ name, exportName });
  }
  return { lockfile: dropped.length > 0 ? { ...lockfile, prompts } : lockfile, dropped };
}
