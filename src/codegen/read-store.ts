/**
 * Reads what `generate` builds from: the lockfile and every snapshot it names. No network, no key.
 * Every unreadable snapshot is reported in one error, so a broken merge is fixed in one go.
 */
import { readFileSync } from 'node:fs';
import { LockfileError } from '../errors.js';
import type { Limits } from '../limits.js';
import type { Lockfile } from '../store/lockfile-format.js';
import { decodeUnconflictedLockfile } from '../store/lockfile-merge.js';
import { snapshotPath } from '../store/paths.js';
import { integrityOf } from '../store/integrity.js';
import { decodeSnapshot, snapshotIntegrity } from '../store/snapshot-format.js';
import { displayPath } from './display-path.js';
import { readLockfileText } from './read-lockfile-text.js';
import type { CodegenPrompt } from './prompt-to-function.js';

export interface StoreLocation {
  lockfilePath: string;
  snapshotsDir: string;
  /** The config's limits on a snapshot (size, placeholders, depth); defaults when absent. */
  limits?: Readonly<Limits> | undefined;
}

/**
 * The snapshots of the previous read, by file: text and the prompt decoded from it. A long-running
 * process (`watch`) regenerates the whole module after each edit; when a file's text is unchanged
 * its earlier prompt object is handed out again, which also lets `generateModule` reuse that
 * prompt's compiled function (it memoizes by prompt object). Holds one store's worth; replaced by
 * each read, so deleted files drop out. The prompts handed out are shared: callers must not
 * mutate them (nothing in codegen does).
 */
let previousRead = new Map<string, CachedSnapshot>();

interface CachedSnapshot {
  text: string;
  prompt: CodegenPrompt['prompt'];
  /** The lock integrity this text was found to match, if it did. */
  verified?: string;
}

function readSnapshot(
  file: string,
  shown: string,
  name: string,
  thisRead: Map<string, CachedSnapshot>,
  integrity: string,
  limits: Readonly<Limits> | undefined,
): { prompt: CodegenPrompt['prompt']; matches: boolean } {
  let text: string;
  try {
    // Synchronous on purpose: for thousands of small files one read each on this thread is several
    // times faster than promise reads hopping through the thread pool (measured: 10,000 snapshots).
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new LockfileError(
      code === 'ENOENT'
        ? `Snapshot ${shown} of ${name} not found.`
        : `Cannot read snapshot ${shown} of ${name}: ${(error as Error).message}`,
    );
  }
  const known = previousRead.get(file);
  const same = known !== undefined && known.text === text;
  const prompt = same ? known.prompt : decodeSnapshot(text, shown, limits);
  // Hash the bytes as they are first (what sync wrote); only text that differs from them, e.g.
  // line endings converted by git, needs the canonical re-encoding.
  const matches =
    (same && known.verified === integrity) || integrityOf(text) === integrity || snapshotIntegrity(prompt) === integrity;
  thisRead.set(file, { text, prompt, ...(matches ? { verified: integrity } : {}) });
  return { prompt, matches };
}

/** Decodes the lockfile text and reads each snapshot it lists, in lockfile order. */
export async function readStore(
  location: StoreLocation,
  lockfileText?: string,
  /** Receives the names whose snapshot does not match its lockfile integrity (edited by hand). */
  mismatched: string[] = [],
): Promise<CodegenPrompt[]> {
  const text = lockfileText ?? (await readLockfileText(location.lockfilePath));
  // A conflicted lockfile is not resolved here (generate writes only the module): the error says to run `promptlock sync`.
  const lockfile: Lockfile = decodeUnconflictedLockfile(text, displayPath(location.lockfilePath));
  const names = Object.keys(lockfile.prompts);
  const out: CodegenPrompt[] = [];
  const problems: string[] = [];
  // Shown paths are derived from one computed for the folder: path.relative per file adds up.
  const shownDir = displayPath(location.snapshotsDir);
  const thisRead = new Map<string, CachedSnapshot>();
  for (const name of names) {
    try {
      const file = snapshotPath(location.snapshotsDir, name);
      const shown = shownDir + file.slice(location.snapshotsDir.length);
      const entry = lockfile.prompts[name]!;
      const { prompt, matches } = readSnapshot(file, shown, name, thisRead, entry.integrity, location.limits);
      if (!matches) mismatched.push(name);
      out.push({ name, entry, prompt });
    } catch (error) {
      if (!(error instanceof LockfileError)) throw error;
      problems.push(error.message);
    }
  }
  previousRead = thisRead;
  if (problems.length > 0) {
    problems.sort();
    const message =
      problems.length === 1
        ? problems[0]!
        : `${problems.length} snapshots are missing or damaged:\n  ${problems.join('\n  ')}`;
    throw new LockfileError(message, {
      hint: 'Restore them from git, or run `promptlock sync` to fetch them again.',
    });
  }
  return out;
}
