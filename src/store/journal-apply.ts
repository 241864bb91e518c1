/**
 * Applying a committed journal: each target replaced through a temporary file and a rename (a
 * reader never sees half a file), a move renamed into place, a delete of one file with the
 * folders it leaves empty, up to the snapshots folder. Used by a live commit (journal.ts) and by
 * the replay of an interrupted one (recover-store.ts); both pass ops admitted by journal-scope.ts.
 * A failure never wedges the project: an operation that can never succeed is skipped, one that may
 * (a full or read-only disk) leaves the journal, marked failed, for the next run to complete.
 */
import { constants } from 'node:fs';
import { copyFile, lstat, mkdir, open, rename, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { asFileSystemError, FileSystemError, PromptlockError } from '../errors.js';
import { eachLimited } from '../util/each-limited.js';
import { writeFileSafely } from '../util/write-file.js';
import { COMMITTED, FAILED, journalPath } from './journal-file.js';
import type { StoreFiles, StoreOp } from './journal-scope.js';
import { isWithin, StorePathGuard } from './paths.js';

/** Files replaced at once when applying a journal: their folders' checks and journal reads overlap. */
const APPLY_PARALLELISM = 32;

/**
 * Failpoints for the crash tests, which kill this process (SIGKILL, as a power cut would) at a
 * given moment of a commit: `PROMPTLOCK_FAILPOINT_STAGED=N` once N writes were appended to the
 * pending journal (a sync killed while it fetches), `PROMPTLOCK_FAILPOINT=journal-written` (journal
 * written, not yet fsynced), `=journal-synced` (fsynced, not yet renamed: the moment before the
 * commit point), and `PROMPTLOCK_FAILPOINT_APPLY=N` once N operations of a committed journal were
 * applied (in a live run or in the replay of a later one; writes applied alongside may be half
 * done, as in a real crash).
 */
export function failpoint(name: string): void {
  if (process.env.PROMPTLOCK_FAILPOINT === name) process.kill(process.pid, 'SIGKILL');
}

export function stagedFailpoint(staged: number): void {
  const at = process.env.PROMPTLOCK_FAILPOINT_STAGED;
  if (at !== undefined && Number(at) === staged) process.kill(process.pid, 'SIGKILL');
}

function applyFailpoint(applied: number): void {
  const at = process.env.PROMPTLOCK_FAILPOINT_APPLY;
  if (at !== undefined && Number(at) === applied) process.kill(process.pid, 'SIGKILL');
}

/** Makes a rename in `dir` durable. Platforms that cannot open or sync a folder skip it. */
export async function syncFolder(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (error) {
    if (!['EISDIR', 'EPERM', 'EACCES', 'EINVAL', 'EBADF'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    await handle?.close();
  }
}

/** Moves a staged file onto `target`; done already when it is gone and the target holds it (a repeated apply). */
async function moveStaged(source: string, target: string, size: number): Promise<void> {
  // Only a regular file of the staged size is moved: a link or a folder put under its name (the
  // work folder is input, docs/security.md) would otherwise land in the snapshots folder, or the
  // file it points to be copied there. Refused, the move is skipped (PERMANENT).
  const found = await lstat(source).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (found && !(found.isFile() && found.size === size)) {
    throw new PromptlockError(
      `Refusing to move ${source} into place: it is not the file this run staged (a link, a folder or another size).`,
    );
  }
  try {
    await rename(source, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && (await stat(target).catch(() => undefined))?.size === size) return;
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    // Another file system (a mounted snapshots folder): copied beside the target, then renamed.
    const temp = `${target}.promptlock-tmp`;
    await rm(temp, { force: true });
    await copyFile(source, temp, constants.COPYFILE_EXCL);
    await rename(temp, target);
    await rm(source, { force: true });
  }
}

async function pruneEmptyParents(target: string, stopAt: string, guard: StorePathGuard): Promise<void> {
  let dir = path.dirname(target);
  while (dir !== stopAt && dir.startsWith(stopAt + path.sep)) {
    try {
      await rmdir(dir);
    } catch {
      return; // not empty (or already gone)
    }
    guard.forget(dir); // gone: a later write there checks it afresh
    dir = path.dirname(dir);
  }
}

/**
 * Errors after which retrying an operation cannot help: the target is a folder, a file sits where
 * a folder belongs, a link was refused. Such an operation is skipped (the next sync rewrites what is
 * missing) instead of wedging every later run on the same journal. Anything else (no space,
 * read-only, no permission, I/O) may pass: the journal stays and the next run retries it.
 */
const PERMANENT = new Set(['EISDIR', 'ERR_FS_EISDIR', 'ENOTDIR', 'ENOTEMPTY', 'EEXIST', 'ELOOP', 'EINVAL', 'ENAMETOOLONG', 'ENOENT']);

function isPermanent(error: unknown): boolean {
  if (error instanceof FileSystemError) return error.code !== undefined && PERMANENT.has(error.code);
  if (error instanceof PromptlockError) return true; // refused by the path guard
  return PERMANENT.has((error as NodeJS.ErrnoException).code ?? '');
}

/** A journal to apply: its admitted ops, and the bytes of each write (from a decoded file, or read back from the open journal). */
export interface Applicable {
  files: StoreFiles;
  /** The work folder and the transaction's id: where its journal and failure marker are. */
  workDir: string;
  id: string;
  ops: readonly StoreOp[];
  content(index: number): Buffer | Promise<Buffer>;
}

/** Runs of ops applied together: writes to distinct files, or one delete (which may prune a folder a write needs). */
function groupsOf(ops: readonly StoreOp[]): number[][] {
  const groups: number[][] = [];
  let targets = new Set<string>();
  for (const [index, op] of ops.entries()) {
    const last = groups.at(-1);
    if (op.kind !== 'delete' && last && ops[last[0]!]!.kind !== 'delete' && !targets.has(op.target)) {
      last.push(index);
    } else {
      groups.push([index]);
      targets = new Set();
    }
    targets.add(op.target);
  }
  return groups;
}

/**
 * Applies a committed journal (`<id>.journal` in the work folder) and removes it; returns the
 * operations skipped (see PERMANENT). Consecutive writes to distinct files are applied
 * APPLY_PARALLELISM at a time; a delete waits for what precedes it and runs alone. A delete removes
 * one file, never a folder's content.
 *
 * How no write goes through a symbolic link (docs/security.md, "Touch files outside the project"):
 * - The apply checks with a guard of its own, created here, after the commit point: nothing a
 *   check found while staging (which may be minutes older: a sync stages as it fetches) is
 *   trusted, so a link planted between staging and the apply is found here.
 * - Each folder a write goes into is checked once per apply: its existing components lstat'ed as
 *   real folders before `mkdir` (which would follow a link), then what `mkdir` made lstat'ed too.
 *   Only then does the guard remember the folder as safe, for the other writes there.
 * - The last component is never followed: a write goes through the one writer
 *   (src/util/write-file.ts), which refuses a link at the target (skipped: PERMANENT) and replaces
 *   the file through a temporary file created exclusively and a rename. What is renamed into place
 *   is checked too: a move's staged file must be a regular file of its size. A move's target is
 *   lstat'ed in a folder that existed before this apply, so a file that became a link or a folder
 *   is skipped, not replaced. In a folder this apply's `mkdir` created, the folder was empty when
 *   made and the run lock keeps other runs out: that lstat could only ever report nothing, and is
 *   left out.
 * - A delete is checked whole, as before; a folder it prunes is forgotten by the guard.
 * What no path check can rule out is a process racing the apply itself, swapping a checked folder
 * for a link between its check and a rename through it: Node has no `openat`/`renameat`. The
 * guard is there for links that are in the project (a checkout, a pull request) or appear while a
 * sync fetches.
 */
export async function applyJournal(journal: Applicable): Promise<string[]> {
  const { ops, workDir, id } = journal;
  const store = path.resolve(journal.files.snapshotsDir);
  const guard = new StorePathGuard(journal.files.rootDir, journal.files.snapshotsDir);
  /** Each folder written into, checked and made once: resolves to true when this apply created it. */
  const folders = new Map<string, Promise<boolean>>();
  const prepare = (file: string): Promise<boolean> => {
    const dir = path.dirname(file);
    let ready = folders.get(dir);
    if (!ready) {
      ready = (async () => {
        await guard.checkFolder(file, 'write');
        const made = await mkdir(dir, { recursive: true });
        await guard.checkFolder(file, 'write');
        return made !== undefined;
      })();
      folders.set(dir, ready);
    }
    return ready;
  };
  const skipped: string[] = [];
  let applied = 0;
  let failure: unknown;
  const applyOne = async (index: number): Promise<void> => {
    const op = ops[index]!;
    try {
      if (op.kind !== 'delete') {
        let created: boolean;
        try {
          created = await prepare(op.target);
        } catch (error) {
          folders.delete(path.dirname(op.target));
          await guard.checkFolder(op.target, 'write'); // refused again, naming this file rather than the first one there
          throw error;
        }
        if (!created) await guard.check(op.target, 'write'); // its folders known safe by now: one lstat
        if (op.kind === 'move') await moveStaged(op.source!, op.target, op.size!);
        else {
          // Under a fixed temporary name, so the replay of an interrupted apply reuses (removes) its leftover.
          const temp = `${op.target}.promptlock-tmp`;
          await writeFileSafely(op.target, await journal.content(index), { refusal: PromptlockError, temp });
        }
      } else {
        await guard.check(op.target, 'remove');
        await rm(op.target, { force: true });
        if (op.prune && isWithin(store, op.target)) await pruneEmptyParents(op.target, store, guard);
      }
    } catch (error) {
      if (op.kind !== 'delete') folders.delete(path.dirname(op.target)); // a failed mkdir is retried by the next write there
      if (isPermanent(error)) skipped.push(`${op.target}: ${(error as Error).message}`);
      else failure ??= asFileSystemError(error, op.kind === 'delete' ? 'remove' : 'write', op.target);
    }
    applyFailpoint(++applied);
  };
  applyFailpoint(0);
  for (const group of groupsOf(ops)) {
    await eachLimited(group, APPLY_PARALLELISM, applyOne);
    if (failure) break;
  }
  if (failure) {
    const marker = journalPath(workDir, id, FAILED);
    await writeFileSafely(marker, JSON.stringify({ error: (failure as Error).message }), { refusal: PromptlockError }).catch(
      () => undefined,
    );
    throw failure;
  }
  // The marker first: a journal left without it (killed in between) is merely applied again.
  await rm(journalPath(workDir, id, FAILED), { force: true });
  await rm(journalPath(workDir, id, COMMITTED), { force: true });
  // What stayed in the work folder: a skipped move's file.
  for (const op of ops) if (op.kind === 'move') await rm(op.source!, { force: true });
  return skipped;
}
