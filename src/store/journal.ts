/**
 * All writes of one run land together or not at all. The new bytes of every changed file go into
 * one journal file under `.promptlock/` (see journal-file.ts), appended as each file is staged (a
 * sync stages each prompt as it arrives: `Transaction`), fsynced once with its folder;
 * renaming it from `tx-….pending` to `tx-….journal` is the commit point. Only then is each target
 * replaced (a temporary file beside it, then a rename: a reader never sees half a file). The files
 * themselves are not fsynced: until the journal is removed it can write them again. A run killed
 * before the commit point leaves the previous files untouched; one killed after it is rolled
 * forward by the next run (`recoverStore`), and readers in between see the committed state through
 * `openStoreView`.
 *
 * Every path is checked before it is touched (`StorePathGuard`), when staging and again when
 * applying: inside the project, never through a symbolic link out of it, nor through any link in
 * the snapshots folder. A failure after the commit point never wedges the project: an operation
 * that can never succeed is skipped, one that may (a full or read-only disk) leaves the journal,
 * marked failed, for the next run to complete.
 */
import { constants } from 'node:fs';
import { copyFile, mkdir, open, readdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { asFileSystemError, FileSystemError, PromptlockError } from '../errors.js';
import { eachLimited } from '../util/each-limited.js';
import { readIfExists as readBytesIfExists } from '../util/read-if-exists.js';
import { writeFileAtomic } from '../util/write-file-atomic.js';
import { holdsBytes } from './file-bytes.js';
import {
  byteLengthOf,
  type Content,
  chunksOf,
  decodeJournal,
  isPieces,
  type Journal,
  type JournalHeader,
  type JournalOp,
  JournalWriter,
  STAGED_NAME,
} from './journal-file.js';
import { isWithin, StorePathGuard } from './paths.js';
import { discardAbandonedStaging, holdsStaged, isAlive, type StagedFile } from './staged-file.js';
import { ensureWorkDir, workDirOf } from './work-dir.js';

export type StoreChange =
  /** A StagedFile (a download) is moved into place, never read into memory (journal-file.ts). */
  | { kind: 'write'; path: string; content: Content | StagedFile }
  /** Removes a file or folder; `pruneUpTo` also removes parent folders left empty, up to (not including) that folder. */
  | { kind: 'delete'; path: string; pruneUpTo?: string };

/** A journal being written: never committed while it has this name. */
const PENDING = '.pending';
/** A committed journal: the rename to this name is the commit point. */
const COMMITTED = '.journal';
/** Marks a committed journal whose apply failed in a live run: readers then see the real files. */
const FAILED = '.failed.json';

/**
 * True when `file` already holds exactly `content`: compared a chunk at a time, and only when the
 * sizes match (a large module is never held twice). A folder there cannot be replaced by a file:
 * refused before anything is staged.
 */
function holdsContent(file: string, content: Content): Promise<boolean> {
  return holdsBytes(file, byteLengthOf(content), async (handle) => {
    let position = 0;
    for (const chunk of chunksOf(content)) {
      const current = Buffer.allocUnsafe(chunk.byteLength);
      const { bytesRead } = await handle.read(current, 0, chunk.byteLength, position);
      if (bytesRead !== chunk.byteLength || !current.equals(chunk)) return false;
      position += bytesRead;
    }
    return true;
  });
}

async function exists(file: string): Promise<boolean> {
  try {
    await readdir(file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return true;
    if (code === 'ENOENT') return false;
    throw error;
  }
}

const isStaged = (content: Content | StagedFile): content is StagedFile =>
  typeof content === 'object' && !isPieces(content) && 'staged' in content;

/** Moves a staged file onto `target`; done already when it is gone and the target holds it (a repeated apply). */
async function moveStaged(source: string, target: string, size: number): Promise<void> {
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

/** Makes a rename in `dir` durable. Platforms that cannot open or sync a folder skip it. */
async function syncFolder(dir: string): Promise<void> {
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

async function pruneEmptyParents(target: string, stopAt: string): Promise<void> {
  let dir = path.dirname(target);
  while (dir !== stopAt && dir.startsWith(stopAt + path.sep)) {
    try {
      await rmdir(dir);
    } catch {
      return; // not empty (or already gone)
    }
    dir = path.dirname(dir);
  }
}

/**
 * Failpoints for the crash tests, which kill this process (SIGKILL, as a power cut would) at a
 * given moment of a commit: `PROMPTLOCK_FAILPOINT_STAGED=N` once N writes were appended to the
 * pending journal (a sync killed while it fetches), `PROMPTLOCK_FAILPOINT=journal-written` (journal
 * written, not yet fsynced), `=journal-synced` (fsynced, not yet renamed: the moment before the
 * commit point), and `PROMPTLOCK_FAILPOINT_APPLY=N` once N operations of a committed journal were
 * applied (in a live run or in the replay of a later one; writes applied alongside may be half
 * done, as in a real crash).
 */
function failpoint(name: string): void {
  if (process.env.PROMPTLOCK_FAILPOINT === name) process.kill(process.pid, 'SIGKILL');
}

function stagedFailpoint(staged: number): void {
  const at = process.env.PROMPTLOCK_FAILPOINT_STAGED;
  if (at !== undefined && Number(at) === staged) process.kill(process.pid, 'SIGKILL');
}

function applyFailpoint(applied: number): void {
  const at = process.env.PROMPTLOCK_FAILPOINT_APPLY;
  if (at !== undefined && Number(at) === applied) process.kill(process.pid, 'SIGKILL');
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

const journalPath = (workDir: string, id: string, suffix: string) => path.join(workDir, `${id}${suffix}`);

/**
 * Applies a committed journal (`<id>.journal` in `workDir`) and removes it; returns the operations
 * skipped (see PERMANENT). Consecutive writes to distinct files are applied APPLY_PARALLELISM at a
 * time; a delete (which may prune a folder a write needs) waits for what precedes it and runs alone.
 */
/** A journal to apply: its ops, and the bytes of each write (from a decoded file, or read back from the open journal). */
type Applicable = JournalHeader & { content(index: number): Buffer | Promise<Buffer> | AsyncIterable<Buffer> };

async function applyJournal(rootDir: string, workDir: string, id: string, journal: Applicable, guard?: StorePathGuard): Promise<string[]> {
  const check = guard ?? new StorePathGuard(rootDir, journal.storeDir);
  const root = path.resolve(rootDir);
  const madeDirs = new Map<string, Promise<unknown>>();
  const skipped: string[] = [];
  let applied = 0;
  let failure: unknown;
  const applyOne = async (index: number): Promise<void> => {
    const op = journal.ops[index]!;
    try {
      await check.check(op.target, op.kind === 'delete' ? 'remove' : 'write');
      if (op.kind !== 'delete') {
        const dir = path.dirname(op.target);
        if (!madeDirs.has(dir)) madeDirs.set(dir, mkdir(dir, { recursive: true }));
        await madeDirs.get(dir);
        if (op.kind === 'move') await moveStaged(op.source!, op.target, op.size!);
        // Under a fixed temporary name, so the replay of an interrupted apply reuses (removes) its leftover.
        else await writeFileAtomic(op.target, await journal.content(index), `${op.target}.promptlock-tmp`);
      } else {
        await rm(op.target, { recursive: true, force: true });
        const stopAt = op.pruneUpTo && isWithin(root, op.pruneUpTo) ? path.resolve(op.pruneUpTo) : root;
        await pruneEmptyParents(op.target, stopAt);
      }
    } catch (error) {
      if (op.kind !== 'delete') madeDirs.delete(path.dirname(op.target)); // a failed mkdir is retried by the next write there
      if (isPermanent(error)) skipped.push(`${op.target}: ${(error as Error).message}`);
      else failure ??= asFileSystemError(error, op.kind === 'delete' ? 'remove' : 'write', op.target);
    }
    applyFailpoint(++applied);
  };
  applyFailpoint(0);
  // Groups of ops to run together: writes to distinct files, or one delete.
  const groups: number[][] = [];
  let targets = new Set<string>();
  for (const [index, op] of journal.ops.entries()) {
    const last = groups.at(-1);
    if (op.kind !== 'delete' && last && journal.ops[last[0]!]!.kind !== 'delete' && !targets.has(op.target)) {
      last.push(index);
    } else {
      groups.push([index]);
      targets = new Set();
    }
    targets.add(op.target);
  }
  for (const group of groups) {
    await eachLimited(group, APPLY_PARALLELISM, applyOne);
    if (failure) break;
  }
  if (failure) {
    await writeFile(journalPath(workDir, id, FAILED), JSON.stringify({ error: (failure as Error).message })).catch(() => undefined);
    throw failure;
  }
  // The marker first: a journal left without it (killed in between) is merely applied again.
  await rm(journalPath(workDir, id, FAILED), { force: true });
  await rm(journalPath(workDir, id, COMMITTED), { force: true });
  for (const op of journal.ops) if (op.kind === 'move') await rm(op.source!, { force: true }); // a skipped move's file
  return skipped;
}

/** Files checked and compared at once before staging. */
const READ_PARALLELISM = 32;
/** Files replaced at once when applying a journal: 2,000 files one by one took about twice as long. */
const APPLY_PARALLELISM = 32;

export interface CommitResult {
  written: string[];
  deleted: string[];
}

export interface CommitOptions {
  /** The snapshots folder: no symbolic link inside it is ever followed (see StorePathGuard). */
  storeDir?: string;
}

/**
 * One transaction, staged piece by piece: `stage` checks each change's path, drops a write whose
 * content the file already holds (or a delete of nothing) and appends the new bytes to the pending
 * journal at once, so they need not stay in memory; `commit` stages the last changes, writes the
 * op list, fsyncs, renames (the commit point) and applies. Until then the previous files stand:
 * `abort` (or a kill: the next run's `recoverStore`) discards everything staged. Deletes are
 * applied first, then writes in the order they were staged. Stages may run concurrently; `commit`
 * and `abort` wait for them, and a stage that fails settles only when all it started has.
 */
export class Transaction {
  private readonly guard: StorePathGuard;
  private readonly id = `tx-${process.pid}-${Date.now()}`;
  /** One slot per staged change, in staging order; undefined for a change dropped as a no-op. */
  private readonly slots: Array<JournalOp | undefined> = [];
  private readonly staging = new Set<Promise<void>>();
  private writer: Promise<{ workDir: string; journal: JournalWriter }> | undefined;
  private staged = 0;
  private moves = 0;
  private state: 'open' | 'committing' | 'done' = 'open';

  constructor(
    readonly rootDir: string,
    private readonly options: CommitOptions = {},
  ) {
    this.guard = new StorePathGuard(rootDir, options.storeDir);
  }

  /** The pending journal, created by the first change that needs it. */
  private open(): Promise<{ workDir: string; journal: JournalWriter }> {
    // Aborted (or committed) before anything was staged: no journal may appear behind the cleanup.
    if (this.state === 'done' && !this.writer) return Promise.reject(new Error('Transaction: already ended'));
    this.writer ??= (async () => {
      const workDir = await ensureWorkDir(this.rootDir);
      return { workDir, journal: await JournalWriter.create(journalPath(workDir, this.id, PENDING)) };
    })();
    return this.writer;
  }

  /** Stages `changes` (see class comment); a refused path throws before anything of it is appended. */
  async stage(changes: readonly StoreChange[]): Promise<void> {
    if (this.state !== 'open') throw new Error('Transaction.stage: already committed');
    const first = this.slots.length;
    this.slots.length += changes.length;
    const work = eachLimited(changes, READ_PARALLELISM, (change, index) =>
      this.stageOne(change, first + index).catch((error: unknown) => {
        throw asFileSystemError(error, 'write', (error as NodeJS.ErrnoException).path ?? change.path);
      }),
    );
    const tracked = work.finally(() => this.staging.delete(tracked));
    this.staging.add(tracked);
    await tracked;
  }

  private async stageOne(change: StoreChange, slot: number): Promise<void> {
    await this.guard.check(change.path, change.kind === 'write' ? 'write' : 'remove');
    if (change.kind === 'delete') {
      if (await exists(change.path))
        this.slots[slot] = { kind: 'delete', target: change.path, ...(change.pruneUpTo ? { pruneUpTo: change.pruneUpTo } : {}) };
      return;
    }
    const content = change.content;
    if (isStaged(content)) {
      if (await holdsStaged(change.path, content)) return;
      // A staged download joins the transaction under its name (`<id>.<n>.staged`), so an
      // interrupted run's journal finds it and a discarded one removes it.
      const { workDir } = await this.open();
      const source = journalPath(workDir, this.id, `.${this.moves++}.staged`);
      await rename(content.staged, source);
      this.slots[slot] = { kind: 'move', target: change.path, source, size: content.size };
      return;
    }
    if (await holdsContent(change.path, content)) return;
    const { journal } = await this.open();
    const at = await journal.append(content);
    this.slots[slot] = { kind: 'write', target: change.path, at, size: byteLengthOf(content) };
    stagedFailpoint(++this.staged);
  }

  /** Waits for every stage in flight, successful or not. */
  private async settle(): Promise<void> {
    while (this.staging.size > 0) await Promise.allSettled([...this.staging]);
  }

  /** Stages `changes`, then commits everything staged (see class comment). */
  async commit(changes: readonly StoreChange[] = []): Promise<CommitResult> {
    let ops: JournalOp[];
    try {
      await this.stage(changes);
      this.state = 'committing';
      await this.settle();
      const staged = this.slots.filter((op): op is JournalOp => op !== undefined);
      // Deletes first, whenever they were staged (writes come in as prompts arrive, deletes after
      // the last one): a dropped context file and a new one of the same name on a case-insensitive
      // disk (`Logo.png` → `logo.png`) must end with the new file, not without it. The bytes stay
      // where they were appended; ops are applied in this order.
      ops = [...staged.filter((op) => op.kind === 'delete'), ...staged.filter((op) => op.kind !== 'delete')];
    } catch (error) {
      await this.abort();
      throw error;
    }
    // Sorted: prompts are staged in the order they arrive.
    const result: CommitResult = {
      written: ops.flatMap((op) => (op.kind !== 'delete' ? [op.target] : [])).sort(),
      deleted: ops.flatMap((op) => (op.kind === 'delete' ? [op.target] : [])).sort(),
    };
    if (ops.length === 0) {
      await this.abort();
      return result;
    }
    const header = { ops, ...(this.options.storeDir ? { storeDir: this.options.storeDir } : {}) };
    let opened: { workDir: string; journal: JournalWriter };
    const committed = () => journalPath(opened.workDir, this.id, COMMITTED);
    try {
      opened = await this.open();
      if (this.moves > 0) await syncFolder(opened.workDir); // the staged files are in place before the journal names them
      await opened.journal.finish(header);
      failpoint('journal-written');
      await opened.journal.sync(); // the one fsync of the commit's data
      failpoint('journal-synced');
      await rename(opened.journal.file, committed()); // the commit point
      await syncFolder(opened.workDir); // ...made durable before any target is replaced
    } catch (error) {
      // Nothing was applied: the previous files stand. Free the journal (a full disk stays full otherwise).
      await this.abort();
      throw asFileSystemError(error, 'write', (error as NodeJS.ErrnoException).path ?? this.id);
    }
    this.state = 'done';
    const { journal } = opened;
    let skipped: string[];
    try {
      skipped = await applyJournal(
        this.rootDir,
        opened.workDir,
        this.id,
        { ...header, content: (index) => journal.read(ops[index]!.at!, ops[index]!.size!) },
        this.guard,
      );
    } finally {
      await journal.close();
    }
    if (skipped.length > 0) {
      throw new PromptlockError(`Could not apply ${skipped.length} of the committed writes:\n  - ${skipped.join('\n  - ')}`, {
        hint: 'They were skipped and everything else was written. Fix what is named above, then run `promptlock sync`: it rewrites what is missing.',
      });
    }
    return result;
  }

  /** Discards everything staged (nothing is applied); a no-op once committed. */
  async abort(): Promise<void> {
    if (this.state === 'done') return;
    this.state = 'done';
    await this.settle();
    const opened = await this.writer?.catch(() => undefined);
    if (!opened) return;
    await opened.journal.close();
    await rm(opened.journal.file, { force: true }).catch(() => undefined);
    await rm(journalPath(opened.workDir, this.id, COMMITTED), { force: true }).catch(() => undefined);
    for (let n = 0; n < this.moves; n++)
      await rm(journalPath(opened.workDir, this.id, `.${n}.staged`), { force: true }).catch(() => undefined);
  }
}

/**
 * Applies `changes` as one transaction. Writes whose content equals the file on disk and deletes
 * of paths that do not exist are dropped, so an unchanged run touches no file. Every path is checked
 * before it is staged: inside the project, no link out of it (nor any link in the snapshots
 * folder), no folder where a file is to be written. A failure while staging removes the staging.
 */
export function commitChanges(rootDir: string, changes: readonly StoreChange[], options: CommitOptions = {}): Promise<CommitResult> {
  return new Transaction(rootDir, options).commit(changes);
}

interface PendingTransaction {
  id: string;
  /** Every file of this transaction in the work folder (to remove when it is discarded). */
  entries: string[];
  /** The committed journal; undefined when the run was interrupted before its commit point, or it is torn. */
  journal: Journal | undefined;
  /** Set when a live run failed to apply this committed journal (its error message). */
  failed: string | undefined;
}

/** A file's bytes, or undefined when it is missing or a folder. */
async function readIfExists(file: string): Promise<Buffer | undefined> {
  try {
    return await readBytesIfExists(file, null);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
    throw asFileSystemError(error, 'read', file);
  }
}

/**
 * The transactions interrupted runs left in the work folder, oldest name first. Throws
 * DamagedJournalError for a committed journal that is whole but does not match its checksum.
 */
async function pendingTransactions(rootDir: string): Promise<PendingTransaction[]> {
  const workDir = workDirOf(rootDir);
  let names: string[];
  try {
    names = (await readdir(workDir)).filter((name) => name.startsWith('tx-')).sort();
  } catch {
    return [];
  }
  const byId = new Map<string, string[]>();
  for (const name of names) {
    const suffix = [PENDING, COMMITTED, FAILED].find((s) => name.endsWith(s));
    const id = STAGED_NAME.exec(name)?.[1] ?? (suffix ? name.slice(0, -suffix.length) : name); // anything else (a folder of an older version, say) is discarded
    byId.set(id, [...(byId.get(id) ?? []), name]);
  }
  const out: PendingTransaction[] = [];
  for (const [id, entries] of byId) {
    const file = journalPath(workDir, id, COMMITTED);
    const bytes = entries.includes(`${id}${COMMITTED}`) ? await readIfExists(file) : undefined;
    const journal = bytes ? decodeJournal(bytes, file) : undefined;
    const failed = journal && entries.includes(`${id}${FAILED}`) ? await readIfExists(journalPath(workDir, id, FAILED)) : undefined;
    out.push({
      id,
      entries: entries.map((name) => path.join(workDir, name)),
      journal,
      failed: failed ? failedMessage(failed) : undefined,
    });
  }
  return out;
}

function failedMessage(bytes: Buffer): string {
  try {
    return String((JSON.parse(bytes.toString('utf8')) as { error?: unknown }).error ?? 'failed');
  } catch {
    return 'failed';
  }
}

/**
 * Finishes what an interrupted run committed and discards what it had not (a journal still being
 * written, or torn). Call with the run lock held, before reading the store to change it. Returns
 * true when something was recovered. An operation that can never succeed (see PERMANENT) is
 * skipped, so no journal wedges the project; the sync that follows rewrites what it finds missing.
 * One that may succeed later (no space, a read-only disk) throws a FileSystemError and the journal
 * stays for the next run. A damaged committed journal is refused (DamagedJournalError), never applied.
 */
export async function recoverStore(rootDir: string): Promise<boolean> {
  await discardAbandonedStaging(rootDir);
  let recovered = false;
  for (const { id, entries, journal } of await pendingTransactions(rootDir)) {
    if (journal) {
      await applyJournal(rootDir, workDirOf(rootDir), id, journal);
      for (const entry of entries) await rm(entry, { force: true }); // a staged file no valid op named
      recovered = true;
    } else {
      for (const entry of entries) await rm(entry, { recursive: true, force: true });
    }
  }
  return recovered;
}

/** Reads store files as the last committed run left them, without writing anything. */
export interface StoreView {
  readFile(file: string): Promise<Buffer | undefined>;
  /** Committed journals whose apply failed in a live run (their message): the files on disk are what counts. */
  failedCommits: string[];
}

export async function openStoreView(rootDir: string): Promise<StoreView> {
  // A move's bytes are read when asked for: from its staged file, or the target once it has moved.
  const overlay = new Map<string, Buffer | null | (() => Promise<Buffer | undefined>)>();
  const failedCommits: string[] = [];
  for (const { journal, failed } of await pendingTransactions(rootDir)) {
    // A run that failed (rather than being killed) told its user so; its journal is not the truth
    // until a run completes it, so readers see the real files.
    if (failed !== undefined) {
      failedCommits.push(failed);
      continue;
    }
    for (const [index, op] of (journal?.ops ?? []).entries()) {
      if (op.kind === 'delete') {
        overlay.set(op.target, null);
        for (const key of overlay.keys()) if (key.startsWith(op.target + path.sep)) overlay.set(key, null);
      } else if (op.kind === 'move') {
        overlay.set(op.target, async () => (await readIfExists(op.source!)) ?? readIfExists(op.target));
      } else {
        overlay.set(op.target, journal!.content(index));
      }
    }
  }
  return {
    failedCommits,
    async readFile(file) {
      const redirected = overlay.get(file);
      if (redirected === null) return undefined;
      if (typeof redirected === 'function') return redirected();
      if (redirected !== undefined) return redirected;
      for (const [target, content] of overlay) {
        if (content === null && file.startsWith(target + path.sep)) return undefined;
      }
      return readIfExists(file);
    },
  };
}

/**
 * True when an interrupted run left a journal behind (cheap: one readdir, no writes): a committed
 * one, or what a killed run staged. What a live sync is staging while it fetches is its own
 * (`tx-<pid>-….pending`): a `generate` meanwhile reads the committed files, without the run lock.
 */
export async function hasPendingJournal(rootDir: string): Promise<boolean> {
  try {
    return (await readdir(workDirOf(rootDir))).some(
      (name) => name.startsWith('tx-') && (name.endsWith(COMMITTED) || name.endsWith(FAILED) || !isAlive(Number(name.split('-')[1]))),
    );
  } catch {
    return false;
  }
}
