/**
 * The on-disk form of one commit: a single file holding every operation and the new bytes of every
 * written file, so a commit costs one fsync (plus one of its folder) however many files it writes.
 * The bytes come first, appended as each file is staged (a sync stages each prompt as it is
 * fetched: src/sync/sync.ts), and the list of operations last, once the run knows it:
 *
 *     promptlock-journal 2 <offset of the header line, 16 decimal digits>\n
 *     <the bytes of each write, back to back, in the order they were staged>
 *     {"ops":[{"kind":"write","target":"/abs/file","at":38,"size":123},{"kind":"move","source":...},{"kind":"delete",...}],"storeDir":...}\n
 *     end <sha256 hex of the bytes after the first line up to here, then of the first line>\n
 *
 * The first line is written last (its offset is all zeros until then), so a file whose first
 * line announces no header, or a header beyond its end, was cut off while being written: torn,
 * never committed. So is one shorter than its header announces. A file of the announced length
 * whose checksum does not match is damaged: refused, never applied. Operations are applied in
 * header order, whatever the order of their bytes.
 *
 * A `move` carries no bytes: its content is a downloaded file staged beside the journal
 * (`<id>.<n>.staged`, fsynced, in the journal's folder before the commit point), renamed into place
 * when the journal is applied. Large files so never pass through memory nor get written twice.
 *
 * Version 1 journals (left by an earlier promptlock: the header first, `promptlock-journal 1\n`
 * then the op list, then the bytes in op order, then `\nend <sha256 of everything above>\n`) are
 * still read and replayed.
 */
import { createHash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import { asFileSystemError, PromptlockError } from '../errors.js';
import { writeAt } from './file-bytes.js';

export interface JournalOp {
  kind: 'write' | 'delete' | 'move';
  target: string;
  /** Byte length of a write's content (of a move: of its staged file). */
  size?: number;
  /** Where a write's content starts in the journal file. */
  at?: number;
  /** A move's staged file: `<id>.<n>.staged` in the journal's own folder. */
  source?: string;
  pruneUpTo?: string;
}

export interface JournalHeader {
  ops: JournalOp[];
  /** The snapshots folder, for the path guard when a later run applies the journal. */
  storeDir?: string;
}

export interface Journal extends JournalHeader {
  /** The new bytes of op `index` (a write; a move's are in its staged file). */
  content(index: number): Buffer;
}

const PREFIX = 'promptlock-journal ';
const MAGIC_V1 = `${PREFIX}1\n`;
const MAGIC_V2 = `${PREFIX}2 `;
const OFFSET_DIGITS = 16;
/** Length of a version 2 journal's first line: where the first write's bytes start. */
const FIRST_LINE_LENGTH = MAGIC_V2.length + OFFSET_DIGITS + 1;
const TRAILER_TAG_V1 = '\nend ';
const TRAILER_LENGTH_V1 = TRAILER_TAG_V1.length + 64 + 1;
const TRAILER_TAG = 'end ';
const TRAILER_LENGTH = TRAILER_TAG.length + 64 + 1;

const firstLine = (headerAt: number) => Buffer.from(`${MAGIC_V2}${String(headerAt).padStart(OFFSET_DIGITS, '0')}\n`);

/** Characters encoded at once when a text is appended or compared: a large module never exists twice in memory. */
const CHUNK_CHARS = 1 << 20;

/** The byte length of a write's content, without encoding it. */
/** A file's new content: bytes, a text, or a text as the pieces it is made of (a generated module). */
export type Content = string | Uint8Array | readonly string[];

/** A text given as pieces (`Array.isArray` does not narrow a readonly array). */
export const isPieces = (content: unknown): content is readonly string[] => Array.isArray(content);

export function byteLengthOf(content: Content): number {
  if (typeof content === 'string') return Buffer.byteLength(content);
  if (!isPieces(content)) return content.byteLength;
  let length = 0;
  for (const piece of content) length += Buffer.byteLength(piece);
  return length;
}

/** The UTF-8 bytes of `content`, a chunk at a time (a text is never cut inside a surrogate pair). */
export function* chunksOf(content: Content): Generator<Buffer> {
  if (isPieces(content)) {
    // Whole pieces gathered up to a chunk's size: a piece is never cut, so neither is a character.
    let batch: string[] = [];
    let chars = 0;
    for (const piece of content) {
      batch.push(piece);
      chars += piece.length;
      if (chars >= CHUNK_CHARS) {
        yield Buffer.from(batch.join(''));
        batch = [];
        chars = 0;
      }
    }
    if (chars > 0) yield Buffer.from(batch.join(''));
    return;
  }
  if (typeof content !== 'string') {
    yield Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    return;
  }
  for (let start = 0; start < content.length; ) {
    let end = Math.min(start + CHUNK_CHARS, content.length);
    const last = content.charCodeAt(end - 1);
    if (end < content.length && last >= 0xd800 && last <= 0xdbff) end--;
    yield Buffer.from(content.slice(start, end));
    start = end;
  }
}

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

class DamagedJournalError extends PromptlockError {
  constructor(file: string, why: string) {
    super(`Refusing to apply ${file}, the journal of an interrupted sync: ${why}.`, {
      hint:
        `It was written in full and then damaged on disk, so what it would write cannot be trusted. Remove ${path.basename(file)} ` +
        `from ${path.dirname(file)}, then run \`promptlock sync\`: it rewrites every file that is missing or differs (\`promptlock check\` lists them).`,
    });
  }
}

/** The staged file of a move: named for its transaction, beside the journal (see module comment). */
export const STAGED_NAME = /^(tx-[^.]+)\.\d+\.staged$/;

/** A move's source must be a staged file of this journal: a hand-made journal moves nothing else. */
function validSource(source: unknown, file: string): boolean {
  if (typeof source !== 'string' || !path.isAbsolute(source) || path.dirname(source) !== path.dirname(file)) return false;
  const id = path.basename(file).split('.')[0];
  return STAGED_NAME.exec(path.basename(source))?.[1] === id;
}

function validOp(op: unknown, file: string): op is JournalOp {
  const o = op as Partial<JournalOp> | null;
  return (
    !!o &&
    typeof o.target === 'string' &&
    path.isAbsolute(o.target) &&
    (o.pruneUpTo === undefined || typeof o.pruneUpTo === 'string') &&
    (o.kind === 'delete' || o.kind === 'write' || (o.kind === 'move' && validSource(o.source, file) && isSize(o.size)))
  );
}

const isSize = (size: unknown): size is number => typeof size === 'number' && Number.isSafeInteger(size) && size >= 0;

function parseHeader(bytes: Buffer, file: string): Partial<JournalHeader> {
  try {
    return (JSON.parse(bytes.toString('utf8')) as Partial<JournalHeader> | null) ?? {};
  } catch {
    throw new DamagedJournalError(file, 'its header is not valid JSON');
  }
}

/** The well-formed ops of a checked header, each with where its bytes start; a hand-made journal's others are dropped. */
function journalOf(header: Partial<JournalHeader>, rawOps: unknown[], starts: number[], bytes: Buffer, file: string): Journal {
  const ops: JournalOp[] = [];
  const at: number[] = [];
  for (const [index, op] of rawOps.entries()) {
    if (!validOp(op, file)) continue;
    ops.push(
      op.kind === 'write'
        ? { kind: 'write', target: op.target, size: op.size! }
        : op.kind === 'move'
          ? { kind: 'move', target: op.target, source: op.source!, size: op.size! }
          : { kind: 'delete', target: op.target, ...(op.pruneUpTo ? { pruneUpTo: op.pruneUpTo } : {}) },
    );
    at.push(starts[index]!);
  }
  return {
    ops,
    ...(typeof header.storeDir === 'string' ? { storeDir: header.storeDir } : {}),
    content: (index) => (ops[index]!.kind === 'write' ? bytes.subarray(at[index]!, at[index]! + ops[index]!.size!) : Buffer.alloc(0)),
  };
}

/**
 * Reads back a committed journal: undefined when it is torn (cut off while being written: it was
 * never committed); throws DamagedJournalError when it is whole but its checksum or structure is
 * wrong. Operations a hand-made journal may hold that are not well formed are dropped.
 */
export function decodeJournal(bytes: Buffer, file: string): Journal | undefined {
  const head = bytes.subarray(0, PREFIX.length + 2).toString('latin1');
  if (MAGIC_V1.startsWith(head)) return head.length < MAGIC_V1.length ? undefined : decodeVersion1(bytes, file);
  if (!MAGIC_V2.startsWith(head)) throw new DamagedJournalError(file, 'it does not start like a promptlock journal');
  if (bytes.byteLength < FIRST_LINE_LENGTH) return undefined; // torn inside its first line
  const line = /^promptlock-journal 2 (\d{16})\n$/.exec(bytes.subarray(0, FIRST_LINE_LENGTH).toString('latin1'));
  if (!line) throw new DamagedJournalError(file, 'it does not start like a promptlock journal');
  const headerAt = Number(line[1]);
  if (headerAt === 0) return undefined; // cut off before its header was written
  if (headerAt < FIRST_LINE_LENGTH) throw new DamagedJournalError(file, 'its first line names no valid header offset');
  const headerEnd = bytes.indexOf(0x0a, headerAt);
  if (headerEnd < 0) return undefined; // torn inside its header
  const header = parseHeader(bytes.subarray(headerAt, headerEnd), file);
  const expected = headerEnd + 1 + TRAILER_LENGTH;
  if (bytes.byteLength < expected) return undefined; // torn
  const trailer = bytes.subarray(headerEnd + 1).toString('latin1');
  if (bytes.byteLength > expected || !trailer.startsWith(TRAILER_TAG) || !trailer.endsWith('\n')) {
    throw new DamagedJournalError(file, `it is ${bytes.byteLength} bytes long where its header announces ${expected}`);
  }
  const recorded = trailer.slice(TRAILER_TAG.length, -1);
  const actual = createHash('sha256')
    .update(bytes.subarray(FIRST_LINE_LENGTH, headerEnd + 1))
    .update(bytes.subarray(0, FIRST_LINE_LENGTH))
    .digest('hex');
  if (recorded !== actual)
    throw new DamagedJournalError(file, `its checksum does not match its content (sha256 ${actual}, recorded ${recorded})`);
  const rawOps: unknown[] = Array.isArray(header.ops) ? header.ops : [];
  const starts = rawOps.map((op) => {
    const { kind, at, size } = (op ?? {}) as Partial<JournalOp>;
    if (kind !== 'write') return 0;
    if (!isSize(size) || !isSize(at) || at < FIRST_LINE_LENGTH || at + size > headerAt) {
      throw new DamagedJournalError(file, 'a write in its header has no valid offset and size');
    }
    return at;
  });
  return journalOf(header, rawOps, starts, bytes, file);
}

/** A version 1 journal (see module comment): its header announces the sizes, its bytes follow in op order. */
function decodeVersion1(bytes: Buffer, file: string): Journal | undefined {
  const headerEnd = bytes.indexOf(0x0a, MAGIC_V1.length);
  if (headerEnd < 0) return undefined; // torn inside its first lines
  const header = parseHeader(bytes.subarray(MAGIC_V1.length, headerEnd), file);
  const rawOps: unknown[] = Array.isArray(header.ops) ? header.ops : [];
  const starts: number[] = [];
  let at = headerEnd + 1;
  for (const op of rawOps) {
    starts.push(at);
    if ((op as JournalOp | null)?.kind !== 'write') continue;
    const size = (op as JournalOp).size;
    if (!isSize(size)) throw new DamagedJournalError(file, 'a write in its header has no valid size');
    at += size;
  }
  const expected = at + TRAILER_LENGTH_V1;
  if (bytes.byteLength < expected) return undefined; // torn
  const trailer = bytes.subarray(at).toString('latin1');
  if (bytes.byteLength > expected || !trailer.startsWith(TRAILER_TAG_V1) || !trailer.endsWith('\n')) {
    throw new DamagedJournalError(file, `it is ${bytes.byteLength} bytes long where its header announces ${expected}`);
  }
  const recorded = trailer.slice(TRAILER_TAG_V1.length, -1);
  const actual = createHash('sha256').update(bytes.subarray(0, at)).digest('hex');
  if (recorded !== actual)
    throw new DamagedJournalError(file, `its checksum does not match its content (sha256 ${actual}, recorded ${recorded})`);
  return journalOf(header, rawOps, starts, bytes, file);
}
