import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';

/**
 * Replaces `file` through a temporary file next to it and a rename, so a reader (an editor, a
 * bundler in watch mode) and an interrupted run never see half a file. The temporary file is
 * created exclusively, so nothing is ever written through a link planted under its name. By
 * default its name is random; a fixed `temp` (the journal's, so a replay after a crash reuses it)
 * whose leftover exists is removed first. An iterable `content` is read once (the first attempt
 * fails before reading it).
 */
export async function writeFileAtomic(
  file: string,
  content: string | Uint8Array | AsyncIterable<Uint8Array>,
  temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
): Promise<void> {
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

/**
 * `writeFileAtomic` for bytes in hand, with blocking calls: for thousands of small files (a
 * journal's apply) direct calls cost far less than a round trip through the thread pool for each
 * of the four.
 */
export function writeFileAtomicSync(file: string, content: Uint8Array, temp: string): void {
  try {
    try {
      writeFileSync(temp, content, { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      rmSync(temp, { force: true });
      writeFileSync(temp, content, { flag: 'wx' });
    }
    renameSync(temp, file);
  } catch (error) {
    try {
      rmSync(temp, { force: true });
    } catch {
      // the error below says what went wrong
    }
    throw error;
  }
}
