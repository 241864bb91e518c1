import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';

/**
 * Replaces `file` through a temporary file next to it and a rename, so a reader (an editor, a
 * bundler in watch mode) and an interrupted run never see half a file. The temporary file is
 * created exclusively, so nothing is ever written through a link planted under its name. By
 * default its name is random; a fixed `temp` (the journal's, so a replay after a crash reuses it)
 * whose leftover exists is removed first.
 */
export async function writeFileAtomic(
  file: string,
  content: string | Uint8Array,
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
