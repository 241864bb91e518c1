/**
 * Writing a journal (the format: journal-file.ts): the bytes of each write appended as it is
 * staged, then the header, the trailer and the first line.
 */
import { createHash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import { asFileSystemError } from '../errors.js';
import { writeAt } from './file-bytes.js';
import { FIRST_LINE_LENGTH, fileIdentity, firstLine, type JournalHeader, type JournalOp, TRAILER_TAG } from './journal-file.js';

/**
 * A journal being written: `append` may be called by many stagers at once; each gets its own
 * range of the file, in call order, and the writes run one after another (so the checksum sees
 * the bytes in file order). `finish` then writes the header, the trailer and the first line.
 * Nothing is synced here: the caller decides when (journal.ts).
 */
export class JournalWriter {
  private position = FIRST_LINE_LENGTH;
  private readonly hash = createHash('sha256');
  /** The last write queued: each waits for the one before. */
  private tail: Promise<void> = Promise.resolve();
  private failure: unknown;

  private constructor(
    readonly file: string,
    private readonly handle: FileHandle,
  ) {
    // A failure is kept and thrown by the next append or by finish.
    this.queue(() => writeAt(handle, firstLine(0), 0)).catch(() => undefined);
  }

  /** Creates `file` (which must not exist) and writes its unfinished first line. */
  static async create(file: string): Promise<JournalWriter> {
    return new JournalWriter(file, await open(file, 'wx+'));
  }

  private queue(write: () => Promise<void>): Promise<void> {
    const task = this.tail.then(() => (this.failure ? Promise.reject(this.failure) : write()));
    // One error for every append that fails (a full disk): a sync reports it once, not per prompt.
    const failed = task.catch((error: unknown) => {
      this.failure ??= asFileSystemError(error, 'write', this.file);
      throw this.failure;
    });
    this.tail = failed.catch(() => undefined);
    return failed;
  }

  /** Appends `content` (a text as UTF-8, never encoded into a Buffer here: see writeAt) of `size` bytes; resolves to where it starts once it is written. */
  async append(content: Buffer | string, size: number): Promise<number> {
    if (this.failure) throw this.failure;
    const at = this.position;
    this.position += size;
    await this.queue(async () => {
      this.hash.update(content);
      await writeAt(this.handle, content, at);
    });
    return at;
  }

  /** Waits for every append, then writes the header, the trailer and the first line. */
  async finish(header: JournalHeader): Promise<void> {
    await this.tail;
    if (this.failure) throw this.failure;
    const headerAt = this.position;
    // Signed by the file itself: only this file, on this disk, has this identity (journal-file.ts).
    const owner = fileIdentity(await this.handle.stat({ bigint: true }));
    const headerLine = Buffer.from(`${JSON.stringify({ ...header, owner })}\n`);
    const first = firstLine(headerAt);
    const digest = this.hash.update(headerLine).update(first).digest('hex');
    await writeAt(this.handle, Buffer.concat([headerLine, Buffer.from(`${TRAILER_TAG}${digest}\n`)]), headerAt);
    await writeAt(this.handle, first, 0);
  }

  /** The bytes of a write appended at `at`, read back from the file (the page cache holds them). */
  async read(at: number, size: number): Promise<Buffer> {
    const buffer = Buffer.allocUnsafe(size);
    for (let done = 0; done < size; ) {
      const { bytesRead } = await this.handle.read(buffer, done, size - done, at + done);
      if (bytesRead === 0) throw Object.assign(new Error(`${this.file} ends before its content`), { code: 'EIO' });
      done += bytesRead;
    }
    return buffer;
  }

  sync(): Promise<void> {
    return this.handle.sync();
  }

  /** Waits for the appends queued, then closes the file (after a failure elsewhere, before it is removed). */
  async close(): Promise<void> {
    await this.tail;
    await this.handle.close().catch(() => undefined);
  }
}

/** Writes a whole journal at `file` from the ops and their contents, in op order (not synced). */
export async function writeJournal(file: string, header: JournalHeader, contents: readonly (Buffer | undefined)[]): Promise<void> {
  const writer = await JournalWriter.create(file);
  try {
    const ops: JournalOp[] = [];
    for (const [index, op] of header.ops.entries()) {
      const content = contents[index];
      if (op.kind !== 'write') ops.push(op);
      else {
        const bytes = content ?? Buffer.alloc(0);
        ops.push({ ...op, size: bytes.byteLength, at: await writer.append(bytes, bytes.byteLength) });
      }
    }
    await writer.finish({ ...header, ops });
  } finally {
    await writer.close();
  }
}
