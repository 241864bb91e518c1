/**
 * Reads what `generate` builds from: the lockfile and every snapshot it names. No network, no key.
 * Every unreadable snapshot is reported in one error, so a broken merge is fixed in one go.
 */
import { readFile } from 'node:fs/promises';
import { LockfileError } from '../errors.js';
import { decodeLockfile, type Lockfile } from '../store/lockfile-format.js';
import { snapshotPath } from '../store/paths.js';
import { decodeSnapshot } from '../store/snapshot-format.js';
import { displayPath } from './display-path.js';
import { readLockfileText } from './read-lockfile-text.js';
import type { CodegenPrompt } from './prompt-to-function.js';

export interface StoreLocation {
  lockfilePath: string;
  snapshotsDir: string;
}

// Enough to keep the disk busy without opening thousands of files at once.
const READ_CONCURRENCY = 32;

async function readSnapshot(file: string, name: string): Promise<CodegenPrompt['prompt']> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new LockfileError(
      code === 'ENOENT'
        ? `Snapshot ${displayPath(file)} of ${name} not found.`
        : `Cannot read snapshot ${displayPath(file)} of ${name}: ${(error as Error).message}`,
    );
  }
  return decodeSnapshot(text, displayPath(file));
}

/** Decodes the lockfile text and reads each snapshot it lists, in lockfile order. */
export async function readStore(location: StoreLocation, lockfileText?: string): Promise<CodegenPrompt[]> {
  const text = lockfileText ?? (await readLockfileText(location.lockfilePath));
  const lockfile: Lockfile = decodeLockfile(text, displayPath(location.lockfilePath));
  const names = Object.keys(lockfile.prompts);
  const out: CodegenPrompt[] = new Array(names.length);
  const problems: string[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < names.length; i = next++) {
      const name = names[i]!;
      try {
        const prompt = await readSnapshot(snapshotPath(location.snapshotsDir, name), name);
        out[i] = { name, entry: lockfile.prompts[name]!, prompt };
      } catch (error) {
        if (!(error instanceof LockfileError)) throw error;
        problems.push(error.message);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, names.length) }, worker));
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
