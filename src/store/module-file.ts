/**
 * The generated module on disk: written only when its content changes, atomically: a
 * temporary file next to it, then a rename, so a reader (a bundler in watch mode) never sees half a
 * module and an unchanged module keeps its timestamp. Like every file promptlock writes, the path is
 * checked first by the store's guard (StorePathGuard): inside the project, never through a symbolic
 * link leading out of it.
 */
import { createHash } from 'node:crypto';
import { type Stats, statSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../util/write-file-atomic.js';
import { StorePathGuard } from './paths.js';
import { ensureWorkDir, workDirOf } from './work-dir.js';

/**
 * Resolves to true when the file was written, false when it already held exactly `content`.
 * Throws a PromptlockError naming the link when `file` (or a folder above it, below `rootDir`) is
 * a symbolic link out of the project `rootDir`, or when `file` is outside it.
 */
export async function writeIfChanged(file: string, content: string, rootDir: string): Promise<boolean> {
  await new StorePathGuard(rootDir).check(file, 'write');
  // Compared as bytes: decoding a large module back to text cost more than encoding it once.
  const bytes = Buffer.from(content, 'utf8');
  // Missing or unreadable: written (a folder there fails the write, which says so).
  const current = await readFile(file).catch(() => undefined);
  if (current?.equals(bytes)) return false;
  await mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, bytes);
  return true;
}

/**
 * `generate`'s record of the store it last found up to date (README, "Commands"): one line in
 * `.promptlock/generate.stamp`, the digest of the inputs key and of every input file's stamp (its
 * inode, size, modification and change times: a write, a rename onto it or `touch` each move the
 * change time, which no program sets back). While every stamp is the same, neither the lockfile's
 * digest, the module's seal nor a snapshot's integrity can have changed, so the no-op reads no file
 * but the lockfile's names. The list of files comes from the lockfile, never from the record, and
 * the record only says "these exact files, as verified": a planted one cannot match stamps it
 * cannot know (a clone's change times), so it only costs a verification.
 */
const STAMP_FILE = 'generate.stamp';
const STAMP_HEAD = 'promptlock-generate-stamp 1 ';

/**
 * The package names of a lockfile, from its bytes as `encodeLockfile` writes them: each prompt's
 * key is the only line indented by exactly four spaces. Used only on a lockfile found canonical
 * (the module's inputs digest is over the canonical text), and cross-checked with the decoded
 * names before a stamp is recorded.
 */
export function lockfileNames(bytes: Buffer): string[] {
  const text = bytes.toString('latin1');
  const names: string[] = [];
  for (let at = text.indexOf('\n    "'); at !== -1; at = text.indexOf('\n    "', at + 6)) {
    names.push(text.slice(at + 6, text.indexOf('"', at + 6)));
  }
  return names;
}

/**
 * The digest of `key` and the stamps of `files`, in order: each file's inode, size, modification
 * and change time as four numbers (all -1 when it cannot be stat'ed: missing, its check reports
 * it), hashed as one array. Synchronous: for thousands of small files one stat each on this thread
 * costs less than a round trip through the thread pool for each; numbers, not text, since
 * formatting four numbers per file would cost as much as the stat.
 */
export function stampsDigest(key: string, files: readonly string[]): string {
  // Each stamp goes into the array as it is taken: holding 10,000 stats (four dates each) until
  // the end cost a no-op more in garbage collection than the hashing.
  const stamps = new Float64Array(files.length * 4);
  files.forEach((file, i) => {
    let stat: Stats | undefined;
    try {
      stat = statSync(file, { throwIfNoEntry: false });
    } catch {
      stat = undefined;
    }
    stamps.set(stat ? toFileStamp(stat) : MISSING, i * 4);
  });
  return hashStamps(key, stamps);
}

/** A file's stamp as `stampsDigest` hashes it: inode, size, modification and change time. */
export type FileStamp = readonly [ino: number, size: number, mtimeMs: number, ctimeMs: number];

const MISSING: FileStamp = [-1, -1, -1, -1];

/** The stamp of a stat, to keep instead of the stat itself. */
export function toFileStamp(stat: Stats): FileStamp {
  return [stat.ino, stat.size, stat.mtimeMs, stat.ctimeMs];
}

/** `stampsDigest` of stamps already taken (each on the open file, before it was read). */
export function digestOfStamps(key: string, taken: ReadonlyArray<FileStamp | undefined>): string {
  const stamps = new Float64Array(taken.length * 4);
  taken.forEach((stamp, i) => {
    stamps.set(stamp ?? MISSING, i * 4);
  });
  return hashStamps(key, stamps);
}

function hashStamps(key: string, stamps: Float64Array): string {
  return createHash('sha256').update(key).update('\n').update(stamps).digest('base64');
}

/** True when `.promptlock/generate.stamp` of `rootDir` records `digest`. */
export async function stampRecords(rootDir: string, digest: string): Promise<boolean> {
  const text = await readFile(path.join(workDirOf(rootDir), STAMP_FILE), 'latin1').catch(() => undefined);
  return text === `${STAMP_HEAD}${digest}\n`;
}

/** Records `digest` as verified. Best effort: a store that cannot keep it is only verified again. */
export async function recordStamp(rootDir: string, digest: string): Promise<void> {
  try {
    const dir = await ensureWorkDir(rootDir);
    await writeFileAtomic(path.join(dir, STAMP_FILE), `${STAMP_HEAD}${digest}\n`);
  } catch {
    // A read-only checkout: every no-op then verifies the snapshots.
  }
}
