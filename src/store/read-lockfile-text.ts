import { readFile } from 'node:fs/promises';
import { LockfileError } from '../errors.js';
import { displayPath } from '../util/display-path.js';

/** The lockfile's text; a missing lockfile is a `LockfileError` that says how to create one. */
export async function readLockfileText(lockfilePath: string): Promise<string> {
  try {
    return await readFile(lockfilePath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new LockfileError(`Lockfile ${displayPath(lockfilePath)} not found.`, {
        hint: 'Run `promptlock sync` to create it (this needs the API key once), and commit it with the snapshots.',
      });
    }
    throw new LockfileError(`Cannot read lockfile ${displayPath(lockfilePath)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
