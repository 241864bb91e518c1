/**
 * The lockfile's text, unparsed: all `generate`'s up-to-date check reads (its digest is taken over
 * the text). Apart from read-store.ts so that path loads no schema or snapshot code.
 */
import { LockfileError } from '../errors.js';
import { displayPath } from '../util/display-path.js';
import { readIfExists } from '../util/read-if-exists.js';

/** The lockfile's text; a missing lockfile is a `LockfileError` that says how to create one. */
export async function readLockfileText(lockfilePath: string): Promise<string> {
  const text = await readIfExists(lockfilePath).catch((error: unknown) => {
    throw new LockfileError(`Cannot read lockfile ${displayPath(lockfilePath)}: ${(error as Error).message}`, {
      cause: error,
    });
  });
  if (text === undefined) {
    throw new LockfileError(`Lockfile ${displayPath(lockfilePath)} not found.`, {
      hint: 'Run `promptlock sync` to create it (this needs the API key once), and commit it with the snapshots.',
    });
  }
  return text;
}
