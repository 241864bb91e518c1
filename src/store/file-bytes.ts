/**
 * Byte-level file helpers the journal and the download staging share: a positioned write that
 * finishes what a short write left, and the "does this file already hold these bytes" check that
 * lets a commit skip an unchanged file.
 */
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { asFileSystemError, FileSystemError } from '../errors.js';

/**
 * Writes every byte of `content` (a text as UTF-8) at `position`: a write may take only part of
 * them (a disk filling up does that before it fails). A text is written as it is: the write's own
 * copy of its bytes is freed when it completes, where a Buffer of them would wait for a full
 * collection (the module of 10,000 prompts is 29 MB).
 */
export async function writeAt(handle: FileHandle, content: Uint8Array | string, position: number): Promise<void> {
  let bytes: Uint8Array;
  if (typeof content === 'string') {
    const { bytesWritten } = await handle.write(content, position, 'utf8');
    if (bytesWritten === Buffer.byteLength(content)) return;
    bytes = Buffer.from(content).subarray(bytesWritten);
    position += bytesWritten;
  } else bytes = content;
  let done = 0;
  while (done < bytes.byteLength) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.byteLength - done, position + done);
    if (bytesWritten === 0) throw Object.assign(new Error('nothing was written'), { code: 'EIO' });
    done += bytesWritten;
  }
}

/**
 * True when `file` is a regular file `size` bytes long and `same` (reading it through the handle)
 * says its bytes are the new ones; false when it differs, is missing, or is no regular file (a FIFO
 * or a device is replaced by the write, never read: opened without waiting, src/util/read-bounded.ts).
 * A folder there cannot be replaced by a file: refused (a FileSystemError naming it), as for any write.
 */
export async function holdsBytes(file: string, size: number, same: (handle: FileHandle) => Promise<boolean>): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new FileSystemError('write', file, error);
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    return stats.isFile() && stats.size === size && (await same(handle));
  } catch (error) {
    throw asFileSystemError(error, 'write', file);
  } finally {
    await handle.close();
  }
}
