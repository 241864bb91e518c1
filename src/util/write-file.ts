/**
 * The one way promptlock writes a file (docs/security.md, "Files on disk"): never through a
 * symbolic link. A checkout may hold a link at any name promptlock writes (`.promptlock/.gitignore`,
 * package.json, a CI file, a folder such as `.gitlab/`), and writing through it would overwrite
 * whatever it points at with the user's permissions.
 * - The file itself: a link at its name is refused, naming it. A replace writes a temporary file
 *   beside it, created exclusively (nothing is written through a link under that name either), and
 *   renames it over the name, so a reader (an editor, a bundler in watch mode) and an interrupted
 *   run never see half a file; a rename replaces what is at the name, it never writes through it.
 *   A create (`exclusive`) fails when anything at all is at the name.
 * - Its folders: with `within`, every folder from there down to the file must be a real folder,
 *   made one by one where missing; a link among them is refused, naming it. Without it, the caller
 *   has checked them by its own rule: the store's path guard (src/store/paths.ts), which lets a
 *   link stay inside the project.
 */
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { lstat, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface WriteOptions {
  /** The error a link is refused with (it takes a hint, as promptlock's named errors do). */
  refusal: new (
    message: string,
    options: { hint?: string },
  ) => Error;
  /** Check (and make) every folder from this one down to the file; it must hold the file. */
  within?: string;
  /** Create the file only: fails with EEXIST when anything is at its name. */
  exclusive?: boolean;
  /** A fixed temporary name (a journal's apply reuses it after a crash); its leftover is removed first. By default a random one. */
  temp?: string;
}

const HINT =
  'promptlock never writes through a symbolic link. Replace the link with a real file or folder (or remove it), and run the command again.';

async function lstatIfExists(file: string): Promise<Stats | undefined> {
  try {
    return await lstat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Makes every folder from `within` down to `file`'s folder, refusing a link among them. */
async function prepareFolders(file: string, within: string, options: WriteOptions): Promise<void> {
  const relative = path.relative(within, path.dirname(file));
  if (relative.startsWith('..') || path.isAbsolute(relative)) throw new Error(`writeFileSafely: ${file} is not in ${within}`);
  let current = within;
  for (const part of relative.split(path.sep).filter(Boolean)) {
    current = path.join(current, part);
    let stats = await lstatIfExists(current);
    if (!stats) {
      await mkdir(current).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      stats = await lstat(current);
    }
    if (stats.isSymbolicLink()) {
      throw new options.refusal(`Refusing to write ${file}: ${current} is a symbolic link, and promptlock never writes through one.`, {
        hint: HINT,
      });
    }
    if (!stats.isDirectory()) throw Object.assign(new Error(`${current} is not a folder`), { code: 'ENOTDIR', path: current });
  }
}

/** Throws `refusal`, naming `file`, when a symbolic link is at its name: the writer's own check, for a caller that decides earlier (a sync, before its commit point). */
export async function refuseLinkAt(file: string, refusal: WriteOptions['refusal']): Promise<void> {
  if ((await lstatIfExists(file))?.isSymbolicLink()) {
    throw new refusal(`Refusing to write ${file}: it is a symbolic link, and promptlock never writes through one.`, { hint: HINT });
  }
}

/** Writes `content` to `file` without ever following a link (see the module comment). */
export async function writeFileSafely(file: string, content: string | Uint8Array, options: WriteOptions): Promise<void> {
  if (options.within !== undefined) await prepareFolders(file, options.within, options);
  await refuseLinkAt(file, options.refusal);
  // O_CREAT | O_EXCL: a name taken since the check above (by a link too) fails, it is not followed.
  if (options.exclusive) return writeFile(file, content, { flag: 'wx' });
  const temp = options.temp ?? `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    try {
      await writeFile(temp, content, { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      await rm(temp, { force: true });
      await writeFile(temp, content, { flag: 'wx' });
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}
