/**
 * The lockfile unparsed: its bytes are all `generate`'s up-to-date check reads (its digest is taken
 * over them, without decoding 10 MB into a string), its text what read-store.ts parses. Apart from
 * read-store.ts so that path loads no schema or snapshot code.
 */
import { LockfileError } from '../errors.js';
import { displayPath } from '../util/display-path.js';
import { readIfExists } from '../util/read-if-exists.js';

/** The lockfile's text; a missing lockfile is a `LockfileError` that says how to create one. */
export async function readLockfileText(lockfilePath: string): Promise<string> {
  return (await readLockfileBytes(lockfilePath)).toString('utf8');
}

/** The lockfile's bytes; a missing lockfile is a `LockfileError` that says how to create one. */
export async function readLockfileBytes(lockfilePath: string): Promise<Buffer> {
  const bytes = await readIfExists(lockfilePath, null).catch((error: unknown) => {
    throw new LockfileError(`Cannot read lockfile ${displayPath(lockfilePath)}: ${(error as Error).message}`, {
      cause: error,
    });
  });
  if (bytes === undefined) {
    throw new LockfileError(`Lockfile ${displayPath(lockfilePath)} not found.`, {
      hint: 'Run `promptlock sync` to create it (this needs the API key once), and commit it with the snapshots.',
    });
  }
  return bytes;
}
