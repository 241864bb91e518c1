/**
 * Writing a journal (the format: journal-file.ts): the bytes of each write appended as it is
 * staged, then the header, the trailer and the first line.
 */
import { createHash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import { asFileSystemError } from '../errors.js';
import { writeAt } from './file-bytes.js';
import { byteLengthOf, CHUNK_CHARS, type Content, chunksOf } from './journal-content.js';
import { FIRST_LINE_LENGTH, firstLine, type JournalHeader, type JournalOp, TRAILER_TAG } from './journal-file.js';

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

  /** Appends `content` (encoded a chunk at a time); resolves to where its bytes start once they are written. */
  async append(content: Content): Promise<number> {
    if (this.failure) throw this.failure;
    const at = this.position;
    this.position += byteLengthOf(content);
    await this.queue(async () => {
      let position = at;
      for (const chunk of chunksOf(content)) {
        this.hash.update(chunk);
        await writeAt(this.handle, chunk, position);
        position += chunk.byteLength;
      }
    });
    return at;
  }

  /** Waits for every append, then writes the header, the trailer and the first line. */
  async finish(header: JournalHeader): Promise<void> {
    await this.settle();
    if (this.failure) throw this.failure;
    const headerAt = this.position;
    const headerLine = Buffer.from(`${JSON.stringify(header)}\n`);
    const first = firstLine(headerAt);
    const digest = this.hash.update(headerLine).update(first).digest('hex');
    await writeAt(this.handle, Buffer.concat([headerLine, Buffer.from(`${TRAILER_TAG}${digest}\n`)]), headerAt);
    await writeAt(this.handle, first, 0);
  }

  /**
   * The bytes of a write appended at `at`, read back from the file (the page cache holds them):
   * whole when small, else a chunk at a time, so a large module is never in memory whole.
   */
  read(at: number, size: number): Buffer | AsyncIterable<Buffer> | Promise<Buffer> {
    const readAt = async (position: number, length: number) => {
      const buffer = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await this.handle.read(buffer, done, length - done, position + done);
        if (bytesRead === 0) throw Object.assign(new Error(`${this.file} ends before its content`), { code: 'EIO' });
        done += bytesRead;
      }
      return buffer;
    };
    if (size <= CHUNK_CHARS) return readAt(at, size);
    return (async function* () {
      for (let done = 0; done < size; done += CHUNK_CHARS) yield await readAt(at + done, Math.min(CHUNK_CHARS, size - done));
    })();
  }

  sync(): Promise<void> {
    return this.handle.sync();
  }

  /** Waits for the appends queued (after a failure elsewhere, before the file is removed). */
  async settle(): Promise<void> {
    await this.tail;
  }

  async close(): Promise<void> {
    await this.settle();
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
        ops.push({ ...op, size: bytes.byteLength, at: await writer.append(bytes) });
      }
    }
    await writer.finish({ ...header, ops });
  } finally {
    await writer.close();
  }
}
