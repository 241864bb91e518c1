/**
 * Lockfiles with git merge conflicts (README.md, Troubleshooting: "a merge conflict in
 * prompts.lock.json"). Two branches that each synced different prompts conflict in the lockfile;
 * `promptlock sync` (and `sync --frozen`) resolve it the way npm resolves `package-lock.json`:
 * both sides are taken and merged entry by entry, every version either side locked is kept, and
 * nothing else is upgraded. Deleting the lockfile instead would re-resolve every floating prompt.
 *
 * Rules of the merge, per package name:
 * - on one side only: kept (its removal, if the config no longer asks for it, is sync's business);
 * - identical on both sides: kept;
 * - different selectors: the side whose selector the config asks for wins; if neither or both do,
 * - the higher version wins (`v0`, the draft, is the lowest);
 * - same version, different content (a draft edited on both branches, or a branch that forged the
 *   text of a version): the side that changed it from the common ancestor (diff3 conflicts carry
 *   it), else "ours"; the decision records both texts' integrities, and sync keeps only the side the
 *   service confirms (see `src/sync/merge-resolution.ts`).
 *
 * Only lines that start at column 0 with exactly seven marker characters are markers:
 * `<<<<<<<` (and a space or the line's end), `|||||||` (diff3's ancestor), `=======` alone, and
 * `>>>>>>>`. A JSON string never spans lines, so no lockfile content can look like one.
 */
import { LockfileError } from '../errors.js';
import { decodeLockfile, type LockEntry, type Lockfile } from './lockfile-format.js';

const START = /^<{7}(?: |$)/;
const BASE = /^\|{7}(?: |$)/;
const SEPARATOR = /^={7}$/;
const END = /^>{7}(?: |$)/;
/** A start marker anywhere in a text: the cheap test before anything is parsed. */
const ANY_START = /^<{7}(?: |\r?$)/m;

export interface ConflictSides {
  /** The text with every conflict taken from the current branch (`HEAD`). */
  ours: string;
  /** The text with every conflict taken from the branch being merged. */
  theirs: string;
  /** The common ancestor, when every conflict carried one (`merge.conflictStyle = diff3`/`zdiff3`). */
  base?: string;
  /** Number of conflicts (hunks). */
  hunks: number;
  /** For each side, the 1-based line of the conflicted text that each of its lines came from. */
  lines: { ours: number[]; theirs: number[]; base: number[] };
}

/** The 1-based line of the first conflict start marker, or undefined when the text has none. */
export function conflictMarkerLine(text: string): number | undefined {
  const match = ANY_START.exec(text);
  if (!match) return undefined;
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < match.index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function markerError(where: string, line: number, what: string): LockfileError {
  return new LockfileError(`Lockfile ${where} has a damaged merge conflict at line ${line}: ${what}.`, {
    hint: 'Restore the conflict with `git checkout --merge -- <lockfile>` (or `git checkout --theirs`/`--ours`), then run `promptlock sync`.',
  });
}

/**
 * Splits a text with git conflict markers into its two sides (and the ancestor for diff3
 * conflicts), keeping line endings (LF or CRLF) as they are. Undefined when there is no conflict.
 */
export function splitConflict(text: string, where: string): ConflictSides | undefined {
  if (conflictMarkerLine(text) === undefined) return undefined;
  const out = { ours: [] as string[], theirs: [] as string[], base: [] as string[] };
  const lines = { ours: [] as number[], theirs: [] as number[], base: [] as number[] };
  const push = (side: keyof typeof out, line: string, number: number) => {
    out[side].push(line);
    lines[side].push(number);
  };
  let state: 'common' | 'ours' | 'base' | 'theirs' = 'common';
  let hunks = 0;
  let hunkStart = 0;
  let everyHunkHasBase = true;
  let hunkHasBase = false;
  const all = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  all.forEach((line, index) => {
    const number = index + 1;
    const bare = line.replace(/\r?\n$/, '');
    if (START.test(bare)) {
      if (state !== 'common') throw markerError(where, number, `a new conflict starts inside the one opened at line ${hunkStart}`);
      state = 'ours';
      hunks++;
      hunkStart = number;
      hunkHasBase = false;
    } else if (BASE.test(bare)) {
      if (state !== 'ours') throw markerError(where, number, `"|||||||" is not after "<<<<<<<"`);
      state = 'base';
      hunkHasBase = true;
    } else if (SEPARATOR.test(bare)) {
      if (state !== 'ours' && state !== 'base') throw markerError(where, number, `"=======" is outside a conflict`);
      state = 'theirs';
    } else if (END.test(bare)) {
      if (state !== 'theirs') throw markerError(where, number, `">>>>>>>" has no "=======" before it`);
      state = 'common';
      if (!hunkHasBase) everyHunkHasBase = false;
    } else if (state === 'common') {
      push('ours', line, number);
      push('theirs', line, number);
      push('base', line, number);
    } else {
      push(state, line, number);
    }
  });
  if (state !== 'common') throw markerError(where, hunkStart, 'the conflict that starts there never ends (no ">>>>>>>")');
  return {
    ours: out.ours.join(''),
    theirs: out.theirs.join(''),
    ...(everyHunkHasBase ? { base: out.base.join('') } : {}),
    hunks,
    lines,
  };
}

/** The error for a conflicted lockfile read by anything but `sync`: it names the command that resolves it. */
function unresolvedConflictError(where: string, line: number): LockfileError {
  return new LockfileError(`Lockfile ${where} has unresolved git merge conflict markers (line ${line}).`, {
    hint:
      'Run `promptlock sync` (or `promptlock sync --frozen`): it merges both sides, keeps every version either branch locked, ' +
      're-verifies the snapshots and upgrades nothing else. Do not delete the lockfile: that re-resolves every floating prompt.',
  });
}

/** `decodeLockfile`, except that conflict markers get an error saying to run `promptlock sync`. */
export function decodeUnconflictedLockfile(text: string, where: string): Lockfile {
  const line = conflictMarkerLine(text);
  if (line !== undefined) throw unresolvedConflictError(where, line);
  return decodeLockfile(text, where);
}

/** Decodes one side; a side that is not a lockfile is an error naming the conflicted file's line. */
function decodeSide(text: string, lineMap: number[], where: string, side: string): Lockfile {
  try {
    return decodeLockfile(text, `${where} (${side} side of its merge conflict)`);
  } catch (error) {
    if (!(error instanceof LockfileError)) throw error;
    // A JSON error names the line of the side's own text (src/util/json-location.ts): mapped back to the file.
    const at = /at line (\d+), column/.exec(error.message);
    const line = at ? lineMap[Number(at[1]) - 1] : lineMap[0];
    throw new LockfileError(
      `Lockfile ${where}: ${side} side of its merge conflict is not a lockfile${line ? ` (line ${line})` : ''}: ${error.message}`,
      {
        hint: 'Fix or restore that side by hand (`git checkout --merge -- <lockfile>` restores the conflict), then run `promptlock sync`.',
      },
    );
  }
}

type MergeReason =
  | 'ours only'
  | 'theirs only'
  | 'config selector'
  | 'higher version'
  | 'changed from ancestor'
  | 'same version'
  | 'confirmed by the service';

export interface MergeDecision {
  name: string;
  kept: 'ours' | 'theirs';
  /** The version kept, and the other side's (absent when only one side had it). */
  version: string;
  other?: string;
  reason: MergeReason;
  /**
   * Set when both sides lock this version with different texts: each side's integrity. The files
   * cannot say which is true; sync asks the service (src/sync/merge-resolution.ts).
   */
  texts?: { ours: string; theirs: string };
}

export interface LockfileMerge {
  lockfile: Lockfile;
  /** One per package the two sides disagree on, by name. */
  decisions: MergeDecision[];
  hunks: number;
}

/** `v7` → 7; the draft `v0` and anything unexpected rank lowest. */
function versionRank(version: string): number {
  const match = /^v(\d+)$/.exec(version);
  return match ? Number(match[1]) : -1;
}

const sameEntry = (a: LockEntry, b: LockEntry) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Merges two lockfiles by the rules above. `wanted` is the selector the config asks for a name at
 * (undefined when the config does not ask for it).
 */
export function mergeLockfiles(
  ours: Lockfile,
  theirs: Lockfile,
  wanted: (name: string) => string | null | undefined,
  base?: Lockfile,
): Omit<LockfileMerge, 'hunks'> {
  const prompts: Record<string, LockEntry> = {};
  const decisions: MergeDecision[] = [];
  const names = [...new Set([...Object.keys(ours.prompts), ...Object.keys(theirs.prompts)])].sort();
  for (const name of names) {
    const a = ours.prompts[name];
    const b = theirs.prompts[name];
    if (!a || !b) {
      const only = (a ?? b)!;
      prompts[name] = only;
      decisions.push({ name, kept: a ? 'ours' : 'theirs', version: only.version, reason: a ? 'ours only' : 'theirs only' });
      continue;
    }
    if (sameEntry(a, b)) {
      prompts[name] = a;
      continue;
    }
    let kept: 'ours' | 'theirs';
    let reason: MergeReason;
    const selector = wanted(name);
    if (a.selector !== b.selector && selector !== undefined && (a.selector === selector) !== (b.selector === selector)) {
      kept = a.selector === selector ? 'ours' : 'theirs';
      reason = 'config selector';
    } else if (versionRank(a.version) !== versionRank(b.version)) {
      kept = versionRank(a.version) > versionRank(b.version) ? 'ours' : 'theirs';
      reason = 'higher version';
    } else {
      const ancestor = base?.prompts[name];
      if (ancestor && sameEntry(ancestor, a) !== sameEntry(ancestor, b)) {
        kept = sameEntry(ancestor, a) ? 'theirs' : 'ours';
        reason = 'changed from ancestor';
      } else {
        kept = 'ours';
        reason = 'same version';
      }
    }
    const entry = kept === 'ours' ? a : b;
    prompts[name] = entry;
    const texts = a.version === b.version && a.integrity !== b.integrity ? { texts: { ours: a.integrity, theirs: b.integrity } } : {};
    decisions.push({ name, kept, version: entry.version, other: (kept === 'ours' ? b : a).version, reason, ...texts });
  }
  return { lockfile: { lockfileVersion: ours.lockfileVersion, prompts }, decisions };
}

/** Splits a conflicted lockfile text, decodes both sides and merges them; undefined when it has no conflict. */
export function resolveLockfileConflict(
  text: string,
  where: string,
  wanted: (name: string) => string | null | undefined,
): LockfileMerge | undefined {
  const sides = splitConflict(text, where);
  if (!sides) return undefined;
  const ours = decodeSide(sides.ours, sides.lines.ours, where, 'our');
  const theirs = decodeSide(sides.theirs, sides.lines.theirs, where, 'their');
  let base: Lockfile | undefined;
  if (sides.base !== undefined) {
    try {
      base = decodeLockfile(sides.base, where);
    } catch {
      // The ancestor only breaks ties; a damaged one is no reason to stop.
    }
  }
  return { ...mergeLockfiles(ours, theirs, wanted, base), hunks: sides.hunks };
}
