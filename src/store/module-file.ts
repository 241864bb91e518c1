/**
 * The generated module on disk: written only when its content changes, atomically: a
 * temporary file next to it, then a rename, so a reader (a bundler in watch mode) never sees half a
 * module and an unchanged module keeps its timestamp. Like every file promptlock writes, the path is
 * checked first by the store's guard (StorePathGuard): inside the project, never through a symbolic
 * link leading out of it; and it is written by the one writer, which never writes through a link
 * (src/util/write-file.ts).
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PromptlockError } from '../errors.js';
import { writeFileSafely } from '../util/write-file.js';
import { StorePathGuard } from './paths.js';
import { readProjectFile } from './read-file.js';

/**
 * Resolves to true when the file was written, false when it already held exactly `content`.
 * Throws a PromptlockError naming the link when `file` (or a folder above it, below `rootDir`) is
 * a symbolic link out of the project `rootDir`, or when `file` is outside it.
 */
export async function writeIfChanged(file: string, content: string, rootDir: string): Promise<boolean> {
  await new StorePathGuard(rootDir).check(file, 'write');
  // Compared as bytes: decoding a large module back to text cost more than encoding it once.
  const bytes = Buffer.from(content, 'utf8');
  // Missing or unreadable (a device, a file over the cap): written (a folder there fails the write, which says so).
  const current = await readProjectFile(rootDir, file, 'module').catch(() => undefined);
  if (current?.equals(bytes)) return false;
  await mkdir(path.dirname(file), { recursive: true });
  await writeFileSafely(file, bytes, { refusal: PromptlockError });
  return true;
}
