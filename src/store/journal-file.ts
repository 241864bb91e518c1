/**
 * The on-disk form of one commit: a single file holding every operation and the new bytes of every
 * written file, so a commit costs one fsync (plus one of its folder) however many files it writes.
 *
 *     promptlock-journal 1\n
 *     {"ops":[{"kind":"write","target":"/abs/file","size":123},{"kind":"move","source":...},{"kind":"delete",...}],"storeDir":...}\n
 *     <the bytes of each write, in op order, back to back>
 *     \nend <sha256 hex of every byte above>\n
 *
 * A `move` carries no bytes: its content is a downloaded file staged beside the journal
 * (`<id>.<n>.staged`, fsynced, in the journal's folder before the commit point), renamed into place
 * when the journal is applied. Large files so never pass through memory nor get written twice.
 *
 * A file shorter than its header announces (or without a whole header) was cut off while being
 * written: torn, never committed. A file of the announced length whose checksum does not match is
 * damaged: refused, never applied.
 */
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { PromptlockError } from '../errors.js';

export interface JournalOp {
  kind: 'write' | 'delete' | 'move';
  target: string;
  /** Byte length of a write's content, stored after the header (of a move: of its staged file). */
  size?: number;
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

const MAGIC = 'promptlock-journal 1\n';
const TRAILER_TAG = '\nend ';
const TRAILER_LENGTH = TRAILER_TAG.length + 64 + 1;
/** Buffers per writev call (the system's IOV_MAX is 1,024). */
const WRITEV_BATCH = 512;

/** Writes every byte of `buffers`: a write may take only part of them (a disk filling up does that before it fails). */
async function writeAll(handle: FileHandle, buffers: Buffer[]): Promise<void> {
  let rest = buffers;
  while (rest.length > 0) {
    const { bytesWritten } = await handle.writev(rest);
    if (bytesWritten === 0) throw Object.assign(new Error('nothing was written'), { code: 'EIO' });
    let written = bytesWritten;
    let index = 0;
    while (index < rest.length && written >= rest[index]!.byteLength) written -= rest[index++]!.byteLength;
    rest = rest.slice(index);
    if (written > 0) rest[0] = rest[0]!.subarray(written);
  }
}

/** Writes a whole journal through `handle` (not synced: the caller decides when). */
export async function writeJournal(handle: FileHandle, header: JournalHeader, contents: readonly (Buffer | undefined)[]): Promise<void> {
  const hash = createHash('sha256');
  let batch: Buffer[] = [];
  const flush = async () => {
    if (batch.length > 0) await writeAll(handle, batch);
    batch = [];
  };
  const push = async (buffer: Buffer) => {
    hash.update(buffer);
    batch.push(buffer);
    if (batch.length >= WRITEV_BATCH) await flush();
  };
  await push(Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`));
  for (const content of contents) if (content && content.byteLength > 0) await push(content);
  batch.push(Buffer.from(`${TRAILER_TAG}${hash.digest('hex')}\n`));
  await flush();
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

/**
 * Reads back a committed journal: undefined when it is torn (cut off while being written: it was
 * never committed); throws DamagedJournalError when it is whole but its checksum or structure is
 * wrong. Operations a hand-made journal may hold that are not well formed are dropped.
 */
export function decodeJournal(bytes: Buffer, file: string): Journal | undefined {
  const magic = Buffer.from(MAGIC);
  const head = bytes.subarray(0, magic.length);
  if (!head.equals(magic.subarray(0, head.length))) throw new DamagedJournalError(file, 'it does not start like a promptlock journal');
  const headerEnd = bytes.indexOf(0x0a, magic.length);
  if (head.length < magic.length || headerEnd < 0) return undefined; // torn inside its first lines
  let header: Partial<JournalHeader>;
  try {
    header = JSON.parse(bytes.subarray(MAGIC.length, headerEnd).toString('utf8')) as Partial<JournalHeader>;
  } catch {
    throw new DamagedJournalError(file, 'its header is not valid JSON');
  }
  const rawOps: unknown[] = Array.isArray(header?.ops) ? header.ops : [];
  const offsets: number[] = [];
  let at = headerEnd + 1;
  for (const op of rawOps) {
    offsets.push(at);
    if ((op as JournalOp | null)?.kind !== 'write') continue;
    const size = (op as JournalOp).size;
    if (!isSize(size)) throw new DamagedJournalError(file, 'a write in its header has no valid size');
    at += size;
  }
  const expected = at + TRAILER_LENGTH;
  if (bytes.byteLength < expected) return undefined; // torn
  const trailer = bytes.subarray(at).toString('latin1');
  if (bytes.byteLength > expected || !trailer.startsWith(TRAILER_TAG) || !trailer.endsWith('\n')) {
    throw new DamagedJournalError(file, `it is ${bytes.byteLength} bytes long where its header announces ${expected}`);
  }
  const recorded = trailer.slice(TRAILER_TAG.length, -1);
  const actual = createHash('sha256').update(bytes.subarray(0, at)).digest('hex');
  if (recorded !== actual)
    throw new DamagedJournalError(file, `its checksum does not match its content (sha256 ${actual}, recorded ${recorded})`);

  const ops: JournalOp[] = [];
  const starts: number[] = [];
  for (const [index, op] of rawOps.entries()) {
    if (!validOp(op, file)) continue;
    ops.push(
      op.kind === 'write'
        ? { kind: 'write', target: op.target, size: op.size! }
        : op.kind === 'move'
          ? { kind: 'move', target: op.target, source: op.source!, size: op.size! }
          : { kind: 'delete', target: op.target, ...(op.pruneUpTo ? { pruneUpTo: op.pruneUpTo } : {}) },
    );
    starts.push(offsets[index]!);
  }
  return {
    ops,
    ...(typeof header.storeDir === 'string' ? { storeDir: header.storeDir } : {}),
    content: (index) =>
      ops[index]!.kind === 'write' ? bytes.subarray(starts[index]!, starts[index]! + ops[index]!.size!) : Buffer.alloc(0),
  };
}
