/**
 * Reading the store as the last committed run left it, without writing anything: a committed
 * journal not yet applied (its run was killed after the commit point) is read through, once its
 * paths are admitted (journal-scope.ts), for prompt data only, never for the module, and only when
 * a run wrote it here (recover-store.ts): a journal that came with the checkout is never read.
 * `check` reads through nothing: it reports such journals as problems and checks the files on disk.
 */
import path from 'node:path';
import { storeFileBytes } from '../limits.js';
import { admitOps, type StoreFiles } from './journal-scope.js';
import { isWithin } from './paths.js';
import { readProjectFile, readStoreFile, readWorkFile } from './read-file.js';
import { pendingTransactions, readIfExists } from './recover-store.js';
import { workDirOf } from './work-dir.js';

export interface StoreView {
  readFile(file: string): Promise<Buffer | undefined>;
  /** Committed journals whose apply failed in a live run (their message): the files on disk are what counts. */
  failedCommits: string[];
  /** With `readThrough: false`: committed journals not applied yet, by path (`.promptlock/tx-….journal`). */
  pendingCommits: string[];
  /** Committed journals no run wrote here (committed, copied), by path: never read, never applied. */
  foreignCommits: string[];
}

export interface StoreViewOptions {
  /** Read through the committed journals of interrupted runs (default); false: list them in `pendingCommits`. */
  readThrough?: boolean;
}

export async function openStoreView(files: StoreFiles, options: StoreViewOptions = {}): Promise<StoreView> {
  // Every read bounded, and by its rule (read-file.ts): the snapshots folder never through a link,
  // the lockfile and the module never through one out of the project, a staged download never one.
  const maxBytes = storeFileBytes(files.limits);
  const staged = (at: string) => readWorkFile(at, 'a staged download', maxBytes);
  const modules = new Set(files.moduleFiles.map((file) => path.resolve(file)));
  const readStored = (file: string) =>
    isWithin(files.snapshotsDir, file)
      ? readIfExists(file, (at) => readStoreFile(files.snapshotsDir, at, maxBytes))
      : readIfExists(file, (at) => readProjectFile(files.rootDir, at, modules.has(path.resolve(at)) ? 'module' : 'lockfile'));
  // A move's bytes are read when asked for: from its staged file, or the target once it has moved.
  const overlay = new Map<string, Buffer | null | (() => Promise<Buffer | undefined>)>();
  const failedCommits: string[] = [];
  const pendingCommits: string[] = [];
  const foreignCommits: string[] = [];
  for (const { journal, failed, shown, foreign } of await pendingTransactions(files.rootDir)) {
    if (foreign) {
      foreignCommits.push(shown);
      continue;
    }
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
      else if (op.kind === 'move') overlay.set(op.target, async () => (await readIfExists(op.source!, staged)) ?? readStored(op.target));
      else overlay.set(op.target, journal.content(index));
    }
  }
  return {
    failedCommits,
    pendingCommits,
    foreignCommits,
    async readFile(file) {
      const redirected = overlay.get(path.resolve(file));
      if (redirected === null) return undefined;
      if (typeof redirected === 'function') return redirected();
      if (redirected !== undefined) return redirected;
      return readStored(file);
    },
  };
}
