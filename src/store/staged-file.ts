/**
 * Context files on their way into the store: written to a file in the work folder as they arrive,
 * hashed and counted on the way, so a file of any size costs a few chunks of memory, never its
 * size (docs/security.md, limits). A commit then moves the staged file into place (see
 * journal.ts); a run that fails first removes what it staged, and a run killed first leaves
 * files the next run removes (`discardAbandonedStaging`).
 */
import { createHash, randomUUID } from 'node:crypto';
import { type FileHandle, open, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { asFileSystemError } from '../errors.js';
import { isAlive } from '../util/is-alive.js';
import { holdsBytes, writeAt } from './file-bytes.js';
import { ensureWorkDir, workDirOf } from './work-dir.js';

/** A downloaded file, complete and fsynced, waiting in the work folder to be committed. */
export interface StagedFile {
  /** Absolute path of the staged file. */
  staged: string;
  size: number;
  /** `sha256-<base64>`, the lockfile's format (integrity.ts). */
  integrity: string;
}

/** One file being staged: written from the start again by `reset` (a retried download). */
export interface StagingFile {
  reset(): Promise<void>;
  write(chunk: Uint8Array): Promise<void>;
  /** Makes the file durable and hands it over; the staging keeps no handle on it. */
  finish(): Promise<StagedFile>;
  /** Removes the file (after a failure). */
  discard(): Promise<void>;
}

const PREFIX = 'dl-';
const SUFFIX = '.part';

/**
 * The staged files of one run, under the project's work folder. `discard` removes every one the
 * run did not commit (a failed fetch, a dry run, a failure before the commit).
 */
export class Stager {
  private readonly files = new Set<string>();

  constructor(readonly rootDir: string) {}

  async create(): Promise<StagingFile> {
    const dir = await ensureWorkDir(this.rootDir);
    const file = path.join(dir, `${PREFIX}${process.pid}-${randomUUID()}${SUFFIX}`);
    let handle: FileHandle | undefined;
    try {
      handle = await open(file, 'wx');
    } catch (error) {
      throw asFileSystemError(error, 'write', file);
    }
    this.files.add(file);
    let hash = createHash('sha256');
    let size = 0;
    const fail = (error: unknown) => asFileSystemError(error, 'write', file);
    const discard = async () => {
      await handle?.close().catch(() => undefined);
      handle = undefined;
      await rm(file, { force: true }).catch(() => undefined);
      this.files.delete(file);
    };
    return {
      reset: async () => {
        hash = createHash('sha256');
        size = 0;
        await handle!.truncate(0).catch((error: unknown) => Promise.reject(fail(error)));
      },
      write: async (chunk) => {
        await writeAt(handle!, chunk, size).catch((error: unknown) => Promise.reject(fail(error)));
        hash.update(chunk);
        size += chunk.byteLength;
      },
      finish: async () => {
        try {
          await handle!.truncate(size); // a retried download may have been longer the first time
          await handle!.sync();
          await handle!.close();
          handle = undefined;
        } catch (error) {
          await discard();
          throw fail(error);
        }
        return { staged: file, size, integrity: `sha256-${hash.digest('base64')}` };
      },
      discard,
    };
  }

  /** Removes every file this run staged and did not commit (a committed one has moved away). */
  async discard(): Promise<void> {
    for (const file of this.files) await rm(file, { force: true }).catch(() => undefined);
    this.files.clear();
  }
}

/**
 * Removes staged files left by runs that were killed while downloading (their process is gone).
 * Call with the run lock held; files of a live process (a dry run, say) are left alone.
 */
export async function discardAbandonedStaging(rootDir: string): Promise<void> {
  const dir = workDirOf(rootDir);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const match = /^dl-(\d+)-[0-9a-f-]+\.part$/.exec(name);
    if (match && !isAlive(Number(match[1]))) await rm(path.join(dir, name), { force: true }).catch(() => undefined);
  }
}

/**
 * True when `file` already holds exactly the staged bytes (same size, same digest), read in chunks;
 * false when it differs or is missing. A folder there cannot be replaced by a file: refused, as
 * for any write (file-bytes.ts).
 */
export function holdsStaged(file: string, staged: StagedFile): Promise<boolean> {
  return holdsBytes(file, staged.size, async (handle) => {
    const hash = createHash('sha256');
    for await (const chunk of handle.createReadStream({ autoClose: false })) hash.update(chunk as Buffer);
    return `sha256-${hash.digest('base64')}` === staged.integrity;
  });
}
