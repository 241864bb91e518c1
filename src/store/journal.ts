/**
 * All writes of one run land together or not at all. The new bytes of every changed file go into
 * one journal file under `.promptlock/` (see journal-file.ts), appended as each file is staged (a
 * sync stages each prompt as it arrives: `Transaction`), fsynced once with its folder;
 * renaming it from `tx-….pending` to `tx-….journal` is the commit point. Only then is each target
 * replaced (journal-apply.ts). The files themselves are not fsynced: until the journal is removed
 * it can write them again. A run killed before the commit point leaves the previous files
 * untouched; one killed after it is rolled forward by the next run (recover-store.ts).
 *
 * A transaction only ever names promptlock's own files (journal-scope.ts), and every path is
 * checked before it is touched (`StorePathGuard`), when staging and again when applying: inside
 * the project, never through a symbolic link out of it, nor through any link in the snapshots
 * folder.
 */
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { asFileSystemError, PromptlockError } from '../errors.js';
import { eachLimited } from '../util/each-limited.js';
import { refuseLinkAt } from '../util/write-file.js';
import { holdsBytes } from './file-bytes.js';
import { applyJournal, failpoint, stagedFailpoint, syncFolder } from './journal-apply.js';
import { COMMITTED, type JournalHeader, journalPath, PENDING } from './journal-file.js';
import { journalTarget, mayTouch, type StoreFiles, type StoreOp, storePartOf } from './journal-scope.js';
import { JournalWriter } from './journal-writer.js';
import { StorePathGuard } from './paths.js';
import { holdsStaged, type StagedFile } from './staged-file.js';
import { ensureWorkDir } from './work-dir.js';

export type { StoreFiles } from './journal-scope.js';
export type { StoreView } from './store-view.js';

export type StoreChange =
  /** A StagedFile (a download) is moved into place, never read into memory (journal-file.ts). */
  | { kind: 'write'; path: string; content: string | Uint8Array | StagedFile }
  /** Removes a file of the snapshots folder; with `pruneUpTo` (the snapshots folder) also its parent folders left empty. */
  | { kind: 'delete'; path: string; pruneUpTo?: string };

/** True when `file` already holds exactly `content` (a text as UTF-8), `size` bytes. A folder there cannot be replaced by a file: refused before anything is staged. */
function holdsContent(file: string, content: Buffer | string, size: number): Promise<boolean> {
  return holdsBytes(file, size, async (handle) =>
    (await handle.readFile()).equals(typeof content === 'string' ? Buffer.from(content) : content),
  );
}

const isStaged = (content: string | Uint8Array | StagedFile): content is StagedFile => typeof content === 'object' && 'staged' in content;

/** Files checked and compared at once before staging. */
const READ_PARALLELISM = 32;

export interface CommitResult {
  written: string[];
  deleted: string[];
}

/** Refuses a change to a file that is not promptlock's own (journal-scope.ts): nothing of the transaction is staged after it. */
function refuseForeign(files: StoreFiles, change: StoreChange): void {
  const kind = change.kind === 'write' && isStaged(change.content) ? 'move' : change.kind;
  if (mayTouch(kind, storePartOf(files, change.path))) return;
  throw new PromptlockError(
    `Refusing to ${change.kind === 'delete' ? 'remove' : 'write'} ${change.path}: it is not one of promptlock's own files (snapshots, context files, the lockfile, the module).`,
    { hint: 'Check the snapshots, lockfile and output options of the config.' },
  );
}

export class Transaction {
  private readonly guard: StorePathGuard;
  private readonly id = `tx-${process.pid}-${Date.now()}`;
  /** One slot per staged change, in staging order; undefined for a change dropped as a no-op. */
  private readonly slots: Array<StoreOp | undefined> = [];
  private readonly staging = new Set<Promise<void>>();
  private writer: Promise<{ workDir: string; journal: JournalWriter }> | undefined;
  private staged = 0;
  /** Staged files moved into this transaction (`<id>.<n>.staged`). */
  private moves = 0;
  private state: 'open' | 'committing' | 'done' = 'open';

  constructor(readonly files: StoreFiles) {
    // Staging may take what it found missing as still missing: the apply trusts none of it (journal-apply.ts).
    this.guard = new StorePathGuard(files.rootDir, files.snapshotsDir, { rememberMissing: true });
  }

  /** The pending journal, created by the first change that needs it. */
  private open(): Promise<{ workDir: string; journal: JournalWriter }> {
    // Aborted (or committed) before anything was staged: no journal may appear behind the cleanup.
    if (this.state === 'done' && !this.writer) return Promise.reject(new Error('Transaction: already ended'));
    this.writer ??= (async () => {
      const workDir = await ensureWorkDir(this.files.rootDir);
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
    // False when the path (or a folder above it) does not exist: nothing there to compare or delete.
    const present = await this.guard.check(change.path, change.kind === 'write' ? 'write' : 'remove');
    refuseForeign(this.files, change);
    // The apply would refuse a link at the name (src/util/write-file.ts): refused now, before the commit point, so nothing is half written.
    if (present && change.kind === 'write') await refuseLinkAt(change.path, PromptlockError);
    const part = storePartOf(this.files, change.path)!;
    if (change.kind === 'delete') {
      if (present) this.slots[slot] = { kind: 'delete', target: change.path, part, ...(change.pruneUpTo ? { prune: true } : {}) };
      return;
    }
    const content = change.content;
    if (isStaged(content)) {
      if (present && (await holdsStaged(change.path, content))) return;
      // A staged download joins the transaction under its name (`<id>.<n>.staged`), so an
      // interrupted run's journal finds it and a discarded one removes it.
      const { workDir } = await this.open();
      const source = journalPath(workDir, this.id, `.${this.moves++}.staged`);
      await rename(content.staged, source);
      this.slots[slot] = { kind: 'move', target: change.path, part, source, size: content.size };
      return;
    }
    // A text stays a text until it is written: encoding it here would leave a copy of it (29 MB for
    // the module of 10,000 prompts) for the next full collection (file-bytes.ts, writeAt).
    const data = typeof content === 'string' ? content : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    if (present && (await holdsContent(change.path, data, size))) return;
    const { journal } = await this.open();
    const at = await journal.append(data, size);
    this.slots[slot] = { kind: 'write', target: change.path, part, at, size };
    stagedFailpoint(++this.staged);
  }

  /** Waits for every stage in flight, successful or not. */
  private async settle(): Promise<void> {
    while (this.staging.size > 0) await Promise.allSettled([...this.staging]);
  }

  /** Stages `changes`, then commits everything staged (see class comment). */
  async commit(changes: readonly StoreChange[] = []): Promise<CommitResult> {
    let ops: StoreOp[];
    try {
      await this.stage(changes);
      this.state = 'committing';
      await this.settle();
      const staged = this.slots.filter((op): op is StoreOp => op !== undefined);
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
    // As the journal names them: relative to the project, a move's source by its name.
    const header: JournalHeader = {
      ops: ops.map(({ part: _part, source, ...op }) => ({
        ...op,
        target: journalTarget(this.files.rootDir, op.target),
        ...(source ? { source: path.basename(source) } : {}),
      })),
    };
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
      skipped = await applyJournal({
        files: this.files,
        workDir: opened.workDir,
        id: this.id,
        ops,
        content: (index) => journal.read(ops[index]!.at!, ops[index]!.size!),
      });
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
 * before it is staged: one of promptlock's own files, no link out of the project (nor any link in
 * the snapshots folder), no folder where a file is to be written. A failure while staging removes
 * the staging.
 */
export function commitChanges(files: StoreFiles, changes: readonly StoreChange[]): Promise<CommitResult> {
  return new Transaction(files).commit(changes);
}
