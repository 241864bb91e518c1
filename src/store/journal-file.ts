/**
 * The on-disk form of one commit: a single file holding every operation and the new bytes of every
 * written file, so a commit costs one fsync (plus one of its folder) however many files it writes.
 * The bytes come first, appended as each file is staged (a sync stages each prompt as it is
 * fetched: src/sync/sync.ts), and the list of operations last, once the run knows it:
 *
 *     promptlock-journal 2 <offset of the header line, 16 decimal digits>\n
 *     <the bytes of each write, back to back, in the order they were staged>
 *     {"ops":[{"kind":"write","target":"prompts/acme/x.json","at":38,"size":123},{"kind":"move","source":"tx-….0.staged",...},{"kind":"delete",...}]}\n
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
 * Targets are paths relative to the project, with `/` between their parts; a move's source is
 * the name of its staged file. Which targets a journal may name at all is journal-scope.ts's
 * business: this file only reads and writes the format. The checksum is no secret (anyone can
 * compute it): it tells a torn or damaged file from a whole one, never a planted one from ours.
 */
import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import path from 'node:path';
import { PromptlockError } from '../errors.js';

export interface JournalOp {
  kind: 'write' | 'delete' | 'move';
  /** Relative to the project, `/`-separated (journal-scope.ts). */
  target: string;
  /** Byte length of a write's content (of a move: of its staged file). */
  size?: number;
  /** Where a write's content starts in the journal file. */
  at?: number;
  /** A move's staged file: the name `<id>.<n>.staged`, in the journal's own folder. */
  source?: string;
  /** A delete: parent folders it leaves empty are removed, up to the snapshots folder. */
  prune?: boolean;
}

export interface JournalHeader {
  ops: JournalOp[];
  /**
   * The identity the journal's own file got from the disk when the run created it (`fileIdentity`),
   * written into the checksummed header when the run finishes it. A journal is replayed only when
   * its file still has it: one that came with a checkout, an archive or a copy is a new file, whose
   * identity its author could not know (docs/security.md, "A committed file in .promptlock/").
   */
  owner?: string;
}

/**
 * A file's identity on this disk: its inode and its birth time in nanoseconds. A crash or a reboot
 * keeps both; git, tar and cp make a new file, with another inode and the time it was made.
 */
export const fileIdentity = (stats: BigIntStats) => `${stats.ino}:${stats.birthtimeNs}`;

export interface Journal extends JournalHeader {
  /** The new bytes of op `index` (a write; a move's are in its staged file). */
  content(index: number): Buffer;
}

const PREFIX = 'promptlock-journal ';
const MAGIC = `${PREFIX}2 `;
const OFFSET_DIGITS = 16;
/** Length of a journal's first line: where the first write's bytes start. */
export const FIRST_LINE_LENGTH = MAGIC.length + OFFSET_DIGITS + 1;
export const TRAILER_TAG = 'end ';
const TRAILER_LENGTH = TRAILER_TAG.length + 64 + 1;

export const firstLine = (headerAt: number) => Buffer.from(`${MAGIC}${String(headerAt).padStart(OFFSET_DIGITS, '0')}\n`);

/** A committed journal that cannot be trusted: whole, but not as promptlock writes one. */
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
export const STAGED_NAME = /^(tx-[^./\\]+)\.\d+\.staged$/;

const isSize = (size: unknown): size is number => typeof size === 'number' && Number.isSafeInteger(size) && size >= 0;

/** Why `op` is not well formed, or undefined when it is (a move's source must be a staged file of this journal). */
function malformed(op: Partial<JournalOp> | null, id: string): string | undefined {
  if (!op || typeof op !== 'object' || typeof op.target !== 'string') return 'an operation has no target';
  if (op.kind === 'delete') return op.prune === undefined || typeof op.prune === 'boolean' ? undefined : 'a delete is not well formed';
  if (op.kind === 'write') return undefined; // its offset and size are checked against the file
  if (op.kind !== 'move') return `an operation has the unknown kind ${JSON.stringify(op.kind)}`;
  const source = typeof op.source === 'string' ? STAGED_NAME.exec(op.source) : null;
  return source?.[1] === id && isSize(op.size) ? undefined : `a move names ${JSON.stringify(op.source)}, not a staged file of this journal`;
}

function parseHeader(bytes: Buffer, file: string): Partial<JournalHeader> {
  try {
    return (JSON.parse(bytes.toString('utf8')) as Partial<JournalHeader> | null) ?? {};
  } catch {
    throw new DamagedJournalError(file, 'its header is not valid JSON');
  }
}

/** The ops of a checked header, each in its own shape (nothing else of a hand-made op is kept); throws at the first malformed one. */
function opsOf(header: Partial<JournalHeader>, headerAt: number, file: string): JournalOp[] {
  if (!Array.isArray(header.ops)) throw new DamagedJournalError(file, 'its header has no list of operations');
  const id = path.basename(file).split('.')[0]!;
  return (header.ops as Array<Partial<JournalOp> | null>).map((op) => {
    const why = malformed(op, id);
    if (why !== undefined) throw new DamagedJournalError(file, why);
    const { kind, target, at, size, source, prune } = op as JournalOp;
    if (kind === 'delete') return { kind, target, ...(prune ? { prune } : {}) };
    if (kind === 'move') return { kind, target, source: source!, size: size! };
    if (!isSize(size) || !isSize(at) || at < FIRST_LINE_LENGTH || at + size > headerAt) {
      throw new DamagedJournalError(file, 'a write in its header has no valid offset and size');
    }
    return { kind, target, at, size };
  });
}

/**
 * Reads back a committed journal: undefined when it is torn (cut off while being written: it was
 * never committed); throws DamagedJournalError when it is whole but its checksum or structure is
 * wrong. Its paths are not checked here (journal-scope.ts does).
 */
export function decodeJournal(bytes: Buffer, file: string): Journal | undefined {
  const head = bytes.subarray(0, MAGIC.length).toString('latin1');
  if (!MAGIC.startsWith(head)) throw new DamagedJournalError(file, 'it does not start like a promptlock journal');
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
  const ops = opsOf(header, headerAt, file);
  return {
    ops,
    ...(typeof header.owner === 'string' ? { owner: header.owner } : {}),
    content: (index) => {
      const { kind, at, size } = ops[index]!;
      return kind === 'write' ? bytes.subarray(at!, at! + size!) : Buffer.alloc(0);
    },
  };
}

/** A journal being written: never committed while it has this name. */
export const PENDING = '.pending';
/** A committed journal: the rename to this name is the commit point. */
export const COMMITTED = '.journal';
/** Marks a committed journal whose apply failed in a live run: readers then see the real files. */
export const FAILED = '.failed.json';

/** A file of transaction `id` in the work folder: its journal (with one of the suffixes above) or a staged file. */
export const journalPath = (workDir: string, id: string, suffix: string) => path.join(workDir, `${id}${suffix}`);
