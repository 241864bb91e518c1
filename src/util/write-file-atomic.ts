import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';

/**
 * Replaces `file` through a temporary file next to it and a rename, so a reader (an editor, a
 * bundler in watch mode) and an interrupted run never see half a file.
 */
export async function writeFileAtomic(file: string, content: string | Uint8Array): Promise<void> {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, content);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
