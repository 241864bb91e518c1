/**
 * Reading a file of the snapshots folder without following a symbolic link: neither the file nor
 * a folder between it and the snapshots folder may be a link (the rule writes follow too:
 * paths.ts). A snapshot linked to a file elsewhere (`~/.ssh/id_rsa`, another project's snapshot)
 * would otherwise be printed by `check`, or built into the module by `generate`.
 */
import { closeSync, constants, lstatSync, openSync, readFileSync } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import path from 'node:path';
import { LockfileError } from '../errors.js';
import { isWithin } from './paths.js';

/** `O_NOFOLLOW` where the platform has it: opening a link then fails (ELOOP) instead of reading its target. */
const NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

class LinkedStoreFileError extends LockfileError {
  constructor(link: string) {
    super(`Refusing to read ${link}: it is a symbolic link inside the snapshots folder, and promptlock never follows one.`, {
      hint: 'Replace the link with the file itself (restore it from git, or run `promptlock sync --frozen`).',
    });
  }
}

/** True for an error of opening a link with O_NOFOLLOW (ELOOP; EMLINK on some BSDs). */
const isLinkError = (error: unknown) => ['ELOOP', 'EMLINK'].includes((error as NodeJS.ErrnoException).code ?? '');

/** The folders strictly between `storeDir` and `file`. */
function foldersBetween(storeDir: string, file: string): string[] {
  const parts = path.relative(storeDir, file).split(path.sep).slice(0, -1);
  return parts.map((_, index) => path.join(storeDir, ...parts.slice(0, index + 1)));
}

/** Throws when `file`, or a folder between it and `storeDir`, is a link; what is missing is left to the read. */
async function refuseLinks(storeDir: string, file: string): Promise<void> {
  for (const folder of foldersBetween(storeDir, file)) {
    const stats = await lstat(folder).catch(() => undefined);
    if (stats?.isSymbolicLink()) throw new LinkedStoreFileError(folder);
  }
}

function refuseLinksSync(storeDir: string, file: string, checked?: Set<string>): void {
  // A file's folder found safe means every folder above it was too: thousands of snapshots share a few folders.
  if (checked?.has(path.dirname(file))) return;
  for (const folder of foldersBetween(storeDir, file)) {
    if (checked?.has(folder)) continue;
    if (lstatSync(folder, { throwIfNoEntry: false })?.isSymbolicLink()) throw new LinkedStoreFileError(folder);
    checked?.add(folder);
  }
}

/**
 * The bytes of `file` inside `storeDir`, read without following a link (LinkedStoreFileError
 * names it). Other errors (a missing file: ENOENT) are thrown as they are.
 */
export async function readStoreFile(storeDir: string, file: string): Promise<Buffer> {
  if (!isWithin(storeDir, file)) throw new Error(`readStoreFile: ${file} is not in ${storeDir}`);
  await refuseLinks(storeDir, file);
  let handle;
  try {
    handle = await open(file, NO_FOLLOW);
  } catch (error) {
    if (isLinkError(error)) throw new LinkedStoreFileError(file);
    throw error;
  }
  try {
    // Where O_NOFOLLOW is missing, a link is still told apart by its own stat.
    if (NO_FOLLOW === constants.O_RDONLY && (await lstat(file)).isSymbolicLink()) throw new LinkedStoreFileError(file);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * The same, synchronous, as text (generate reads thousands of small snapshots: read-store.ts).
 * `checked` holds the folders one read of many found not to be links.
 */
export function readStoreFileSync(storeDir: string, file: string, checked?: Set<string>): string {
  refuseLinksSync(storeDir, file, checked);
  let fd: number;
  try {
    fd = openSync(file, NO_FOLLOW);
  } catch (error) {
    if (isLinkError(error)) throw new LinkedStoreFileError(file);
    throw error;
  }
  try {
    if (NO_FOLLOW === constants.O_RDONLY && lstatSync(file).isSymbolicLink()) throw new LinkedStoreFileError(file);
    return readFileSync(fd, 'utf8'); // a folder: EISDIR
  } finally {
    closeSync(fd);
  }
}
