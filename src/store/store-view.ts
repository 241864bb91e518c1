/**
 * Reading the store as the last committed run left it, without writing anything: a committed
 * journal not yet applied (its run was killed after the commit point) is read through, once its
 * paths are admitted (journal-scope.ts), for prompt data only, never for the module. `check`
 * reads through nothing: it reports such a journal as a problem and checks the files on disk.
 */
import path from 'node:path';
import { admitOps, type StoreFiles } from './journal-scope.js';
import { isWithin } from './paths.js';
import { readStoreFile } from './read-no-link.js';
import { pendingTransactions, readIfExists } from './recover-store.js';
import { workDirOf } from './work-dir.js';

export interface StoreView {
  readFile(file: string): Promise<Buffer | undefined>;
  /** Committed journals whose apply failed in a live run (their message): the files on disk are what counts. */
  failedCommits: string[];
  /** With `readThrough: false`: committed journals not applied yet, by path (`.promptlock/tx-….journal`). */
  pendingCommits: string[];
}

export interface StoreViewOptions {
  /** Read through the committed journals of interrupted runs (default); false: list them in `pendingCommits`. */
  readThrough?: boolean;
}

export async function openStoreView(files: StoreFiles, options: StoreViewOptions = {}): Promise<StoreView> {
  // A move's bytes are read when asked for: from its staged file, or the target once it has moved.
  const overlay = new Map<string, Buffer | null | (() => Promise<Buffer | undefined>)>();
  const failedCommits: string[] = [];
  const pendingCommits: string[] = [];
  for (const { journal, failed, shown } of await pendingTransactions(files.rootDir)) {
    // A run that failed (rather than being killed) told its user so; its journal is not the truth
    // until a run completes it, so readers see the real files.
    if (failed !== undefined) {
      failedCommits.push(failed);
      continue;
    }
    if (!journal) continue;
    if (options.readThrough === false) {
      pendingCommits.push(shown);
      continue;
    }
    for (const [index, op] of admitOps(journal.ops, files, workDirOf(files.rootDir), shown).entries()) {
      if (op.part === 'module') continue;
      if (op.kind === 'delete') overlay.set(op.target, null);
      else if (op.kind === 'move') overlay.set(op.target, async () => (await readIfExists(op.source!)) ?? readIfExists(op.target));
      else overlay.set(op.target, journal.content(index));
    }
  }
  return {
    failedCommits,
    pendingCommits,
    async readFile(file) {
      const redirected = overlay.get(path.resolve(file));
      if (redirected === null) return undefined;
      if (typeof redirected === 'function') return redirected();
      if (redirected !== undefined) return redirected;
      // A file of the snapshots folder never through a link (read-no-link.ts).
      return isWithin(files.snapshotsDir, file) ? readIfExists(file, (at) => readStoreFile(files.snapshotsDir, at)) : readIfExists(file);
    },
  };
}
