import { hasPendingJournal, recoverStore } from './journal.js';
import { acquireRunLock } from './run-lock.js';

/**
 * Before reading the store to write from it (generate), completes the commit of a run that was
 * killed half-way, under the run lock. Costs one readdir when there is nothing to finish, so a
 * read-only checkout is never written to.
 */
export async function finishInterruptedRun(rootDir: string, command: string): Promise<boolean> {
  if (!(await hasPendingJournal(rootDir))) return false;
  const lock = await acquireRunLock(rootDir, command);
  try {
    return await recoverStore(rootDir);
  } finally {
    await lock.release();
  }
}
