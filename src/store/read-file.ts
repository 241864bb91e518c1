/**
 * Every read of promptlock's own files, each by its rule, all through the one bounded reader
 * (src/util/read-bounded.ts: a regular file only, never more than a cap; docs/security.md, "Files
 * on disk"):
 * - a file of the snapshots folder (a snapshot, a context file): no link, neither the file nor a
 *   folder between it and the snapshots folder (the rule writes follow too: paths.ts). A snapshot
 *   linked to a file elsewhere (`~/.ssh/id_rsa`, another project's snapshot) would otherwise be
 *   printed by `check`, or built into the module by `generate`;
 * - the lockfile and the module: checked as a write would be (paths.ts): inside the project and no
 *   link leading out of it, so a lockfile linked to another file is never read, and `check` never
 *   prints a character of it;
 * - a file of the work folder `.promptlock/` (a journal's failure marker, the run lock, a staged
 *   download): never a link, for promptlock writes none there.
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { LockfileError, PromptlockError } from '../errors.js';
import { FILE_BYTES, type ReadRule, readBounded, readBoundedSync } from '../util/read-bounded.js';
import { isWithin, StorePathGuard } from './paths.js';

/** A symbolic link among the folders of the snapshots folder: a folder the reader's O_NOFOLLOW cannot see. */
class LinkedStoreFileError extends LockfileError {
  constructor(link: string) {
    super(`Refusing to read ${link}: it is a symbolic link inside the snapshots folder, and promptlock never follows one.`, {
      hint: STORE_FIX,
    });
  }
}

const STORE_FIX = 'Replace the link with the file itself (restore it from git, or run `promptlock sync --frozen`).';

/** A file of the snapshots folder, at most `maxBytes` (storeFileBytes of the config's limits). */
const storeRule = (maxBytes: number): ReadRule => ({
  what: 'a file of the snapshots folder',
  maxBytes,
  links: 'refuse',
  fix: STORE_FIX,
  refusal: LockfileError,
});

/** The folders strictly between `storeDir` and `file`. */
function foldersBetween(storeDir: string, file: string): string[] {
  const parts = path.relative(storeDir, file).split(path.sep).slice(0, -1);
  return parts.map((_, index) => path.join(storeDir, ...parts.slice(0, index + 1)));
}

function refuseLinkedFolders(storeDir: string, file: string, checked?: Set<string>): void {
  // A file's folder found safe means every folder above it was too: thousands of snapshots share a few folders.
  if (checked?.has(path.dirname(file))) return;
  for (const folder of foldersBetween(storeDir, file)) {
    if (checked?.has(folder)) continue;
    if (lstatSync(folder, { throwIfNoEntry: false })?.isSymbolicLink()) throw new LinkedStoreFileError(folder);
    checked?.add(folder);
  }
}

/**
 * The bytes of `file` inside the snapshots folder `storeDir`, at most `maxBytes`, never through a
 * link (a LockfileError names it); undefined when it is missing.
 */
export async function readStoreFile(storeDir: string, file: string, maxBytes: number): Promise<Buffer | undefined> {
  if (!isWithin(storeDir, file)) throw new Error(`readStoreFile: ${file} is not in ${storeDir}`);
  refuseLinkedFolders(storeDir, file);
  return readBounded(file, storeRule(maxBytes));
}

/**
 * The same, synchronous, as text (generate reads thousands of small snapshots: read-store.ts).
 * `checked` holds the folders one read of many found not to be links.
 */
export function readStoreFileSync(storeDir: string, file: string, maxBytes: number, checked?: Set<string>): string | undefined {
  refuseLinkedFolders(storeDir, file, checked);
  return readBoundedSync(file, storeRule(maxBytes))?.toString('utf8');
}

/** The lockfile or the module, read as the store writes them: inside the project `rootDir`, never through a link out of it. */
export async function readProjectFile(rootDir: string, file: string, kind: 'lockfile' | 'module'): Promise<Buffer | undefined> {
  if (!(await new StorePathGuard(rootDir).check(file, 'read'))) return undefined;
  return readBounded(file, {
    what: kind === 'lockfile' ? 'the lockfile' : 'the module',
    maxBytes: FILE_BYTES[kind],
    links: 'follow', // a link the guard let through stays inside the project
    fix:
      kind === 'lockfile'
        ? 'Restore the lockfile from git, or run `promptlock sync` to write it again.'
        : 'Remove it and run `promptlock generate` to write it again.',
    refusal: kind === 'lockfile' ? LockfileError : PromptlockError,
  });
}

/** A file of the work folder `.promptlock/` (`what` names it in errors), at most FILE_BYTES.workFile unless told. */
export function readWorkFile(file: string, what: string, maxBytes: number = FILE_BYTES.workFile): Promise<Buffer | undefined> {
  return readBounded(file, {
    what,
    maxBytes,
    links: 'refuse',
    fix: `promptlock writes no link and nothing this large in .promptlock/: remove ${path.basename(file)} from ${path.dirname(file)}.`,
    refusal: PromptlockError,
  });
}
