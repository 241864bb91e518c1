/**
 * Every read of the lockfile and the snapshots: `readLockfile` and `readLockedSnapshot` for sync,
 * check and watch (through a StoreView, which sees the last committed run), and
 * `readLockedPrompts` for `generate`: the lockfile and every snapshot it names, no network, no key,
 * every unreadable snapshot reported in one error so a broken merge is fixed in one go. One
 * integrity check (`matchesLock`) serves both.
 */
import { type BigIntStats, statSync } from 'node:fs';
import { LockfileError, PromptlockError } from '../errors.js';
import { type Limits, storeFileBytes } from '../limits.js';
import type { Prompt } from '../types.js';
import { displayPath } from '../util/display-path.js';
import { integrityOf } from './integrity.js';
import type { StoreView } from './journal.js';
import type { LockEntry, Lockfile } from './lockfile-format.js';
import { decodeUnconflictedLockfile } from './lockfile-merge.js';
import { contextFilePath, snapshotPath } from './paths.js';
import { readProjectFile, readStoreFileSync } from './read-file.js';
import { decodeSnapshot, snapshotIntegrity } from './snapshot-format.js';

/**
 * The one fix for a missing or damaged snapshot, as `generate` (and every build) and `check` say it:
 * `sync --frozen` downloads exactly the locked version and verifies it against the lockfile.
 */
export const DAMAGED_SNAPSHOT_FIX = 'restore the snapshot from git, or run `promptlock sync --frozen` to download the locked version again';
/**
 * True when a snapshot's text matches its locked integrity. The bytes as they are are hashed first
 * (what sync wrote, unless the prompt holds hidden characters, which the file writes as escapes);
 * only text that differs from the canonical encoding, e.g. line endings converted by git, needs
 * the re-encoding (src/store/snapshot-format.ts).
 */
function matchesLock(text: string, prompt: Prompt, integrity: string): boolean {
  return integrityOf(text) === integrity || snapshotIntegrity(prompt) === integrity;
}

/** The lockfile, or undefined when there is none yet. Conflict markers: an error saying to run `promptlock sync`. */
export async function readLockfile(view: StoreView, lockfilePath: string): Promise<Lockfile | undefined> {
  const bytes = await view.readFile(lockfilePath);
  return bytes === undefined ? undefined : decodeUnconflictedLockfile(bytes.toString('utf8'), lockfilePath);
}

export type SnapshotState = { ok: true; prompt: Prompt } | { ok: false; problem: string; prompt?: Prompt };

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
  let bytes: Buffer | undefined;
  try {
    bytes = await view.readFile(file);
  } catch (error) {
    if (error instanceof LockfileError) return { ok: false, problem: error.message }; // a link (read-no-link.ts)
    throw error;
  }
  if (bytes === undefined) return { ok: false, problem: `snapshot ${file} is missing` };
  const text = bytes.toString('utf8');
  let prompt: Prompt;
  try {
    prompt = decodeSnapshot(text, file, limits);
  } catch (error) {
    return { ok: false, problem: (error as LockfileError).message };
  }
  if (!matchesLock(text, prompt, entry.integrity)) {
    return {
      ok: false,
      prompt,
      problem: `snapshot ${file} does not match the lockfile (integrity ${snapshotIntegrity(prompt)}, locked ${entry.integrity})`,
    };
  }
  if (withFiles) {
    for (const [id, locked] of Object.entries(entry.files ?? {})) {
      let filePath: string;
      try {
        filePath = contextFilePath(snapshotsDir, name, locked.path);
      } catch (error) {
        return { ok: false, prompt, problem: (error as Error).message };
      }
      let content: Buffer | undefined;
      try {
        content = await view.readFile(filePath);
      } catch (error) {
        if (error instanceof LockfileError) return { ok: false, prompt, problem: error.message };
        throw error;
      }
      if (content === undefined) return { ok: false, prompt, problem: `context file ${filePath} (${id}) is missing` };
      if (integrityOf(content) !== locked.integrity) {
        return { ok: false, prompt, problem: `context file ${filePath} (${id}) does not match the lockfile` };
      }
      if (content.byteLength !== locked.size) {
        return {
          ok: false,
          prompt,
          problem: `context file ${filePath} (${id}) has ${content.byteLength} bytes, the lockfile says ${locked.size}`,
        };
      }
    }
  }
  return { ok: true, prompt };
}

/** Where `generate` reads the store from. */
export interface StoreLocation {
  lockfilePath: string;
  snapshotsDir: string;
  /** The project folder: the lockfile is read only from inside it (read-file.ts), and messages name files relative to it. */
  rootDir: string;
  /** The config's limits on a snapshot (size, placeholders, depth); defaults when absent. */
  limits?: Readonly<Limits> | undefined;
}

/** A locked prompt: its package name, lockfile entry and snapshot. */
export interface LockedPrompt {
  name: string;
  entry: LockEntry;
  prompt: Prompt;
}

interface CachedSnapshot {
  text: string;
  prompt: Prompt;
  /** The lock integrity this text was found to match, if it did. */
  verified?: string;
  /** The file's identity, size and times, taken before it was read. */
  stamp?: string;
}

/**
 * What changes whenever a file's content may have: inode, size, modification and change time in
 * nanoseconds (a write, a rename onto it, or `touch` each move the change time, which no program
 * can set back). Equal stamps let `watch` skip reading an unchanged snapshot.
 */
function stampOf(stats: BigIntStats | undefined): string | undefined {
  return stats && `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

/**
 * The snapshots of the previous read, by file: text and the prompt decoded from it. A long-running
 * process (`watch`) owns one and passes it to each read; when a file's text is unchanged its
 * earlier prompt object is handed out again, which also lets the module emitter reuse that
 * prompt's compiled function (it memoizes by prompt object). Holds one store's worth; replaced by
 * each read, so deleted files drop out. The prompts handed out are shared: callers must not
 * mutate them (nothing in codegen does).
 */
export interface SnapshotCache {
  previous: Map<string, CachedSnapshot>;
  /** The lockfile text of the previous read and its decoding, reused while the text is the same. */
  lockfile?: { text: string; decoded: Lockfile };
}

export function createSnapshotCache(): SnapshotCache {
  return { previous: new Map() };
}

function readSnapshotFile(
  /** The snapshots folder, and the folders in it this read found not to be links. */
  store: { dir: string; checked: Set<string> },
  file: string,
  shown: string,
  name: string,
  previous: ReadonlyMap<string, CachedSnapshot> | undefined,
  /** Receives this read's snapshots when a cache keeps them; without one the texts are not held. */
  thisRead: Map<string, CachedSnapshot> | undefined,
  integrity: string,
  limits: Readonly<Limits> | undefined,
): { prompt: Prompt; matches: boolean } {
  const known = previous?.get(file);
  // With a cache, the stamp is taken before the read: a file changed after it gets a new stamp
  // and is read again next time. An unchanged stamp reuses what was read (one stat, no read).
  let stamp: string | undefined;
  try {
    stamp = thisRead ? stampOf(statSync(file, { bigint: true, throwIfNoEntry: false })) : undefined;
  } catch {
    stamp = undefined; // unreadable (a folder above it became a file, say): the read below reports it
  }
  if (known !== undefined && stamp !== undefined && known.stamp === stamp) {
    const matches = known.verified === integrity || matchesLock(known.text, known.prompt, integrity);
    thisRead!.set(file, { ...known, ...(matches ? { verified: integrity } : {}) });
    return { prompt: known.prompt, matches };
  }
  let text: string | undefined;
  try {
    // Synchronous on purpose: for thousands of small files one read each on this thread costs far
    // less than promise reads hopping through the thread pool (docs/performance.md). Never through
    // a link, never more than the limits allow (read-file.ts).
    text = readStoreFileSync(store.dir, file, storeFileBytes(limits), store.checked);
  } catch (error) {
    throw new LockfileError(`Cannot read snapshot ${shown} of ${name}: ${(error as Error).message}`);
  }
  if (text === undefined) throw new LockfileError(`Snapshot ${shown} of ${name} not found.`);
  const same = known !== undefined && known.text === text;
  const prompt = same ? known.prompt : decodeSnapshot(text, shown, limits);
  const matches = (same && known.verified === integrity) || matchesLock(text, prompt, integrity);
  thisRead?.set(file, { text, prompt, ...(matches ? { verified: integrity } : {}), ...(stamp ? { stamp } : {}) });
  return { prompt, matches };
}

export interface ReadLockedPromptsOptions {
  /** Receives the names whose snapshot does not match its lockfile integrity (edited by hand). */
  mismatched?: string[];
  /** Reuse of the previous read's snapshots (watch). */
  cache?: SnapshotCache;
}

/** The lockfile's text; a missing lockfile is a `LockfileError` that says how to create one. */
async function readLockfileText(rootDir: string, lockfilePath: string): Promise<string> {
  // Bounded, and never through a link out of the project (read-file.ts).
  const bytes = await readProjectFile(rootDir, lockfilePath, 'lockfile').catch((error: unknown) => {
    if (error instanceof PromptlockError) throw error;
    throw new LockfileError(`Cannot read lockfile ${displayPath(lockfilePath, rootDir)}: ${(error as Error).message}`, { cause: error });
  });
  if (bytes === undefined) {
    throw new LockfileError(`Lockfile ${displayPath(lockfilePath, rootDir)} not found.`, {
      hint: 'Run `promptlock sync` to create it (this needs the API key once), and commit it with the snapshots.',
    });
  }
  return bytes.toString('utf8');
}

/** Decodes the lockfile text and reads each snapshot it lists, in lockfile order. */
export async function readLockedPrompts(location: StoreLocation, options: ReadLockedPromptsOptions = {}): Promise<LockedPrompt[]> {
  const base = location.rootDir;
  const text = await readLockfileText(base, location.lockfilePath);
  // A conflicted lockfile is not resolved here (generate writes only the module): the error says to run `promptlock sync`.
  const cached = options.cache?.lockfile;
  const lockfile: Lockfile =
    cached?.text === text ? cached.decoded : decodeUnconflictedLockfile(text, displayPath(location.lockfilePath, base));
  if (options.cache) options.cache.lockfile = { text, decoded: lockfile };
  const names = Object.keys(lockfile.prompts);
  const out: LockedPrompt[] = [];
  const problems: string[] = [];
  const thisRead = options.cache ? new Map<string, CachedSnapshot>() : undefined;
  const store = { dir: location.snapshotsDir, checked: new Set<string>() };
  for (const name of names) {
    try {
      const file = snapshotPath(location.snapshotsDir, name);
      const entry = lockfile.prompts[name]!;
      const { prompt, matches } = readSnapshotFile(
        store,
        file,
        displayPath(file, base),
        name,
        options.cache?.previous,
        thisRead,
        entry.integrity,
        location.limits,
      );
      if (!matches) options.mismatched?.push(name);
      out.push({ name, entry, prompt });
    } catch (error) {
      if (!(error instanceof LockfileError)) throw error;
      problems.push(error.message);
    }
  }
  if (options.cache && thisRead) options.cache.previous = thisRead;
  if (problems.length > 0) {
    problems.sort();
    const message =
      problems.length === 1 ? problems[0]! : `${problems.length} snapshots are missing or damaged:\n  ${problems.join('\n  ')}`;
    throw new LockfileError(message, { hint: `${DAMAGED_SNAPSHOT_FIX[0]!.toUpperCase()}${DAMAGED_SNAPSHOT_FIX.slice(1)}.` });
  }
  return out;
}
