import type { StoreFiles } from './journal-scope.js';
import { hasPendingJournal, recoverStore } from './recover-store.js';
import { acquireRunLock } from './run-lock.js';

/**
 * Before reading the store to write from it (generate), completes the commit of a run that was
 * killed half-way, under the run lock: its prompt data, never its module (recover-store.ts), so
 * the caller generates the module next. Costs one readdir when there is nothing to finish, so a
 * read-only checkout is never written to.
 */
export async function finishInterruptedRun(files: StoreFiles, command: string): Promise<boolean> {
  if (!(await hasPendingJournal(files.rootDir))) return false;
  const lock = await acquireRunLock(files.rootDir, command);
  try {
    return await recoverStore(files);
  } finally {
    await lock.release();
  }
}
