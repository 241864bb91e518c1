/**
 * The generated module on disk: read in pieces for `generate`'s up-to-date check (its seal, see
 * src/codegen/inputs-digest.ts), and written only when its content changes, atomically: a
 * temporary file next to it, then a rename, so a reader (a bundler in watch mode) never sees half a
 * module and an unchanged module keeps its timestamp. Like every file promptlock writes, the path is
 * checked first by the store's guard (StorePathGuard): inside the project, never through a symbolic
 * link leading out of it.
 */
import { mkdir, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../util/write-file-atomic.js';
import { StorePathGuard } from './paths.js';

/** Bytes read at a time after the head: a module is read in pieces, never held whole. */
const PIECE_BYTES = 1 << 20;

/** A reading of a module past its first bytes: from `offset` to the end, each piece to `update`. */
export interface ModuleScan {
  offset: number;
  update(bytes: Uint8Array): void;
}

/**
 * Reads the first `headBytes` of a module and hands them to `begin`, which decides from them
 * whether the rest is needed: if it returns a scan, the bytes from its offset to the end follow,
 * piece by piece, and the scan is returned. Undefined when the file cannot be read (missing, a
 * folder: writing it says what is wrong) or `begin` wanted no more.
 */
export async function scanModuleFile<Scan extends ModuleScan>(
  file: string,
  headBytes: number,
  begin: (head: Buffer) => Scan | undefined,
): Promise<Scan | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const head = Buffer.alloc(headBytes);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const scan = begin(head.subarray(0, bytesRead));
    if (!scan) return undefined;
    const piece = Buffer.allocUnsafe(PIECE_BYTES);
    for (let position = scan.offset; ; ) {
      const { bytesRead: read } = await handle.read(piece, 0, piece.length, position);
      if (read === 0) return scan;
      scan.update(piece.subarray(0, read));
      position += read;
    }
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * Resolves to true when the file was written, false when it already held exactly `content`.
 * Throws a PromptlockError naming the link when `file` (or a folder above it, below `rootDir`) is
 * a symbolic link out of the project `rootDir`, or when `file` is outside it.
 */
export async function writeIfChanged(file: string, content: string | readonly string[], rootDir: string): Promise<boolean> {
  await new StorePathGuard(rootDir).check(file, 'write');
  // Compared as bytes: decoding a large module back to text cost more than encoding it once.
  // A module given as pieces is encoded piece by piece: never one large string beside its bytes.
  const bytes =
    typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.concat(content.map((piece) => Buffer.from(piece, 'utf8')));
  // Missing or unreadable: written (a folder there fails the write, which says so).
  const current = await readFile(file).catch(() => undefined);
  if (current?.equals(bytes)) return false;
  await mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, bytes);
  return true;
}
