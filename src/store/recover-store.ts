/**
 * What interrupted runs left in the work folder, and finishing it: a committed journal is rolled
 * forward, anything else (a journal still being written, a torn one, files staged for them) is
 * discarded. A committed journal is an input like any other (journal-scope.ts): its paths are
 * admitted before any of it is applied, its writes to the module are never applied here, and it is
 * applied only when its own file is the one a run created here (its `owner`: journal-file.ts). Only
 * `sync` finishes a journal, and generates the module again; `generate`, a bundler build and `check`
 * never do (docs/security.md, "A committed file in .promptlock/").
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { asFileSystemError, PromptlockError } from '../errors.js';
import { isAlive } from '../util/is-alive.js';
import { FILE_BYTES } from '../util/read-bounded.js';
import { applyJournal } from './journal-apply.js';
import { COMMITTED, decodeJournal, FAILED, fileIdentity, type Journal, journalPath, PENDING, STAGED_NAME } from './journal-file.js';
import { admitOps, journalTarget, type StoreFiles } from './journal-scope.js';
import { CANNOT_EXIST } from './paths.js';
import { readWorkFile } from './read-file.js';
import { discardAbandonedStaging } from './staged-file.js';
import { workDirOf } from './work-dir.js';

export interface PendingTransaction {
  id: string;
  /** The committed journal's path, relative to the project (as errors and `check` name it). */
  shown: string;
  /** Every file of this transaction in the work folder (to remove when it is discarded). */
  entries: string[];
  /** The committed journal; undefined when the run was interrupted before its commit point, or it is torn. */
  journal: Journal | undefined;
  /** Set when a live run failed to apply this committed journal (its error message). */
  failed: string | undefined;
  /** A whole committed journal that no run wrote here: its recorded owner is not its file's identity. */
  foreign: boolean;
}

/** A committed journal that is not this disk's own: it came with a checkout, an archive or a copy. */
class UnownedJournalError extends PromptlockError {
  constructor(shown: string) {
    super(
      `Refusing to apply ${shown}: no promptlock run wrote it here (the file is not the one its run created), so it came with the checkout, an archive or a copy.`,
      {
        hint: `promptlock finishes only the writes of its own interrupted runs (docs/security.md). Remove ${shown}, then run \`promptlock sync\`: it rewrites every file that is missing or differs.`,
      },
    );
  }
}

/** A file's bytes as `read` reads them, or undefined when it is missing (or cannot exist: a name too long) or a folder. */
export async function readIfExists(file: string, read: (file: string) => Promise<Buffer | undefined>): Promise<Buffer | undefined> {
  try {
    return await read(file);
  } catch (error) {
    if (error instanceof PromptlockError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EISDIR' || CANNOT_EXIST.has(code)) return undefined;
    throw asFileSystemError(error, 'read', file);
  }
}

const readJournalBytes = (file: string) => readWorkFile(file, 'a journal', FILE_BYTES.journal);
const readFailedMarker = (file: string) => readWorkFile(file, "a journal's failure marker");

function failedMessage(bytes: Buffer): string {
  try {
    return String((JSON.parse(bytes.toString('utf8')) as { error?: unknown }).error ?? 'failed');
  } catch {
    return 'failed';
  }
}

/**
 * The transactions interrupted runs left in the work folder, oldest name first. Throws
 * DamagedJournalError for a committed journal that is whole but not well formed.
 */
export async function pendingTransactions(rootDir: string): Promise<PendingTransaction[]> {
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
    // Bounded, never through a link (read-file.ts): a journal linked to /dev/zero grew `npm install` without end.
    const bytes = entries.includes(`${id}${COMMITTED}`) ? await readIfExists(file, readJournalBytes) : undefined;
    const journal = bytes ? decodeJournal(bytes, file) : undefined;
    const identity = journal && fileIdentity(await lstat(file, { bigint: true }));
    const failed =
      journal && entries.includes(`${id}${FAILED}`) ? await readIfExists(journalPath(workDir, id, FAILED), readFailedMarker) : undefined;
    out.push({
      id,
      shown: journalTarget(rootDir, file),
      entries: entries.map((name) => path.join(workDir, name)),
      journal,
      failed: failed ? failedMessage(failed) : undefined,
      foreign: journal !== undefined && journal.owner !== identity,
    });
  }
  return out;
}

/**
 * Finishes what an interrupted run committed and discards what it had not (a journal still being
 * written, or torn). Call with the run lock held, before reading the store to change it, and
 * generate the module afterwards: a journal's writes to it are not applied. Returns true when
 * something was recovered. Every committed journal is admitted first (ForeignJournalError: none
 * of them is applied). An operation that can never succeed is skipped (journal-apply.ts), so no
 * journal wedges the project; one that may succeed later (no space, a read-only disk) throws a
 * FileSystemError and the journal stays for the next run. A damaged committed journal is refused
 * (DamagedJournalError), never applied.
 */
export async function recoverStore(files: StoreFiles): Promise<boolean> {
  const { rootDir } = files;
  await discardAbandonedStaging(rootDir);
  const workDir = workDirOf(rootDir);
  const pending = (await pendingTransactions(rootDir)).map((transaction) => ({
    ...transaction,
    ops: transaction.journal && admitOps(transaction.journal.ops, files, workDir, transaction.shown),
  }));
  // Paths first (a planted journal is named with what it would touch), then whose it is.
  const unowned = pending.find((transaction) => transaction.foreign);
  if (unowned) throw new UnownedJournalError(unowned.shown);
  let recovered = false;
  for (const { id, entries, journal, ops } of pending) {
    if (journal && ops) {
      // Prompt data only: the module is what codegen makes of it, never what a journal says.
      const data = [...ops.keys()].filter((index) => ops[index]!.part !== 'module');
      await applyJournal({
        files,
        workDir,
        id,
        ops: data.map((index) => ops[index]!),
        content: (index) => journal.content(data[index]!),
      });
      // What a killed apply left of the module it was writing (journal-apply.ts writes through a fixed temporary name).
      for (const op of ops) if (op.part === 'module') await rm(`${op.target}.promptlock-tmp`, { force: true });
      for (const entry of entries) await rm(entry, { force: true }); // a staged file no valid op named
      recovered = true;
    } else {
      for (const entry of entries) await rm(entry, { recursive: true, force: true });
    }
  }
  return recovered;
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
