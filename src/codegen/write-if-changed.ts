/**
 * Writes a file only when its content changes, atomically: a temporary file next to it, then a
 * rename, so a reader (a bundler in watch mode) never sees half a module and an unchanged module
 * keeps its timestamp. Like every file promptlock writes, the path is checked first by the store's
 * guard (StorePathGuard): inside the project, never through a symbolic link leading out of it.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { StorePathGuard } from '../store/paths.js';

/**
 * Resolves to true when the file was written, false when it already held exactly `content`.
 * Throws a PromptlockError naming the link when `file` (or a folder above it, below `rootDir`) is
 * a symbolic link out of the project `rootDir`, or when `file` is outside it.
 */
export async function writeIfChanged(file: string, content: string, rootDir: string): Promise<boolean> {
  await new StorePathGuard(rootDir).check(file, 'write');
  const current = await readFile(file, 'utf8').catch(() => undefined);
  if (current === content) return false;
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, content, { encoding: 'utf8', flag: 'wx' });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return true;
}
