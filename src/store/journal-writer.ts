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

/** Bytes of small appends gathered into one positioned write, and read back at once by `read`. */
const BATCH_BYTES = 256 * 1024;

/** One append waiting for its write. */
interface Waiting {
  content: Content;
  at: number;
  size: number;
  done(error?: unknown): void;
}

/** Writes `buffers` back to back from `position` in one call, finishing what a short write left. */
async function writevAt(handle: FileHandle, buffers: Buffer[], position: number): Promise<void> {
  const total = buffers.reduce((sum, buffer) => sum + buffer.byteLength, 0);
  const { bytesWritten } = await handle.writev(buffers, position);
  if (bytesWritten < total) await writeAt(handle, Buffer.concat(buffers).subarray(bytesWritten), position + bytesWritten);
}

/**
 * A journal being written: `append` may be called by many stagers at once; each gets its own
 * range of the file, in call order, and the writes run one after another (so the checksum sees
 * the bytes in file order). Appends that wait while a write runs are written together in one
 * call, up to BATCH_BYTES (a larger one alone, a chunk at a time). `finish` then writes the
 * header, the trailer and the first line. Nothing is synced here: the caller decides when
 * (journal.ts).
 */
export class JournalWriter {
  private position = FIRST_LINE_LENGTH;
  private readonly hash = createHash('sha256');
  /** The last write queued: each waits for the one before. */
  private tail: Promise<void> = Promise.resolve();
  private failure: unknown;
  private waiting: Waiting[] = [];
  /** Writes the waiting appends; undefined when none wait. */
  private flushing: Promise<void> | undefined;
  /** The bytes `read` read last, from `start` on. */
  private window: { start: number; end: number; bytes: Promise<Buffer> } | undefined;

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
    const size = byteLengthOf(content);
    this.position += size;
    await new Promise<void>((resolve, reject) => {
      this.waiting.push({ content, at, size, done: (error) => (error === undefined ? resolve() : reject(error)) });
      this.flushing ??= this.flush();
    });
    return at;
  }

  /** Writes the waiting appends in file order, as many at once as BATCH_BYTES allows. */
  private async flush(): Promise<void> {
    await this.tail; // the first line
    while (this.waiting.length > 0) {
      let bytes = 0;
      let count = 0;
      while (count < this.waiting.length && (count === 0 || bytes + this.waiting[count]!.size <= BATCH_BYTES))
        bytes += this.waiting[count++]!.size;
      const batch = this.waiting.splice(0, count);
      try {
        if (this.failure) throw this.failure;
        if (bytes > BATCH_BYTES) {
          let position = batch[0]!.at;
          for (const chunk of chunksOf(batch[0]!.content)) {
            this.hash.update(chunk);
            await writeAt(this.handle, chunk, position);
            position += chunk.byteLength;
          }
        } else {
          const buffers = batch.flatMap((item) => [...chunksOf(item.content)]);
          for (const buffer of buffers) this.hash.update(buffer);
          await writevAt(this.handle, buffers, batch[0]!.at);
        }
        for (const item of batch) item.done();
      } catch (error) {
        this.failure ??= asFileSystemError(error, 'write', this.file);
        for (const item of batch) item.done(this.failure);
      }
    }
    this.flushing = undefined;
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
   * whole when small, else a chunk at a time, so a large module is never in memory whole. Small
   * writes are read BATCH_BYTES at a time: the apply asks for them about in the order they were
   * appended, so one read serves the writes that follow (one behind the last read is read alone).
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
    if (size > CHUNK_CHARS) {
      return (async function* () {
        for (let done = 0; done < size; done += CHUNK_CHARS) yield await readAt(at + done, Math.min(CHUNK_CHARS, size - done));
      })();
    }
    const window = this.window;
    if (window && at >= window.start && at + size <= window.end)
      return window.bytes.then((bytes) => bytes.subarray(at - window.start, at - window.start + size));
    if (size > BATCH_BYTES || (window && at < window.start)) return readAt(at, size);
    // Up to the end of the appended bytes (the header follows them).
    const end = Math.max(at + size, Math.min(at + BATCH_BYTES, this.position));
    const bytes = readAt(at, end - at);
    this.window = { start: at, end, bytes };
    bytes.catch(() => undefined); // the caller of this read gets the error; the next read of the window too
    return bytes.then((all) => all.subarray(0, size));
  }

  sync(): Promise<void> {
    return this.handle.sync();
  }

  /** Waits for the appends queued (after a failure elsewhere, before the file is removed). */
  async settle(): Promise<void> {
    await this.tail;
    while (this.flushing) await this.flushing;
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
