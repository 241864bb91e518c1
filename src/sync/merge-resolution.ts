/**
 * The lockfile as `sync` starts from: the file as it is, or, when it has git conflict markers,
 * both sides merged (`src/store/lockfile-merge.ts`; README.md, Troubleshooting). A merged run holds
 * every locked version: a snapshot that does not match its entry (conflicted itself, or the other
 * branch's) is fetched again at exactly the locked version, never at what a floating selector
 * answers today. Without `--frozen`, a version the two sides do not both lock with the same text
 * is fetched that way even when its snapshot is intact (`confirm`, `ExactVersion`): a branch could have
 * forged both, and the service is the proof. A version it does not have stops the run; a version
 * both sides lock with different texts keeps the side whose text the service answers, or stops
 * the run naming the prompt (`confirmFetched`). `--frozen` cannot ask, so it stops on those.
 */

import { type RequestedEntry, selectorFor } from '../config/prompt-entry.js';
import type { ResolvedConfig } from '../config/types.js';
import { LockfileError } from '../errors.js';
import type { StoreView } from '../store/journal.js';
import { decodeLockfile, type Lockfile } from '../store/lockfile-format.js';
import { type MergeDecision, resolveLockfileConflict } from '../store/lockfile-merge.js';
import type { ConflictResolution, ExactVersion } from './types.js';

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
  return { lockfile: merge.lockfile, resolution: { hunks: merge.hunks, decisions: merge.decisions } };
}

function disputed(decision: MergeDecision): LockfileError {
  return new LockfileError(
    `${decision.name} ${decision.version} is locked with a different text on each side of the merged lockfile (${decision.texts!.ours} and ${decision.texts!.theirs}): one branch changed the text of that version, and the files cannot tell which is true.`,
    {
      hint: `Run \`promptlock sync\` (not --frozen): it fetches ${decision.version} and keeps the side whose text the service answers. If the service answers neither, look at both branches' commits, then take one side of the lockfile conflict (\`git checkout --ours -- <lockfile>\` or \`--theirs\`) and run \`promptlock sync --refetch ${decision.name}\`.`,
    },
  );
}

/**
 * What a merged run holds (`SyncInputs.merged`): every locked version, at exactly that version.
 * Each the two sides do not both lock with the same text is to be confirmed with the service
 * (`confirm`); the others are `merged`, kept from their snapshot when intact. `--frozen` asks
 * nothing: it keeps a version one side locked, as it keeps the lockfile's word, but a version
 * locked with two texts has no word to keep.
 */
export function mergedVersions(lockfile: Lockfile, resolution: ConflictResolution, frozen: boolean): Map<string, ExactVersion> {
  if (frozen) {
    const dispute = resolution.decisions.find((d) => d.texts);
    if (dispute) throw disputed(dispute);
  }
  const confirm = new Map(frozen ? [] : resolution.decisions.filter((d) => d.other !== d.version || d.texts).map((d) => [d.name, d]));
  return new Map(
    Object.entries(lockfile.prompts).map(([name, { version }]): [string, ExactVersion] => {
      const decision = confirm.get(name);
      return [name, decision ? { version, reason: 'confirm', decision } : { version, reason: 'merged' }];
    }),
  );
}

/**
 * A confirmed version as fetched: for one locked with two texts, the side whose integrity the
 * service's answer has is kept (and the decision says so); an answer with neither stops the run.
 */
export function confirmFetched(decision: MergeDecision, integrity: string): void {
  if (!decision.texts) return;
  const side = integrity === decision.texts.ours ? 'ours' : integrity === decision.texts.theirs ? 'theirs' : undefined;
  if (!side) throw disputed(decision);
  decision.kept = side;
  decision.reason = 'confirmed by the service';
}

/** The selector that asks for exactly a locked version (`v0` is the draft). */
export function exactSelector(version: string): string {
  return version === 'v0' ? 'draft' : version;
}

/**
 * A merge can bring two prompts locked under the same export name (each branch added one whose
 * slug makes it). The prompt whose package name sorts first keeps the name; the other loses its
 * recorded name, so the naming rules give it a new one that the summary reports as a rename
 * (docs/generated-module.md). Returns the lockfile without those names, and what was dropped.
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
