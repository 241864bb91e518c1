/**
 * The generated module on disk: its seal checked for `generate`'s up-to-date path (see
 * src/codegen/inputs-digest.ts), and written only when its content changes, atomically: a
 * temporary file next to it, then a rename, so a reader (a bundler in watch mode) never sees half a
 * module and an unchanged module keeps its timestamp. Like every file promptlock writes, the path is
 * checked first by the store's guard (StorePathGuard): inside the project, never through a symbolic
 * link leading out of it.
 */
import { mkdir, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { checkSeal, SEAL_HEAD_BYTES } from '../codegen/inputs-digest.js';
import { writeFileAtomic } from '../util/write-file-atomic.js';
import { StorePathGuard } from './paths.js';

/** Bytes read at a time after the banner: the module is hashed in pieces, never held whole. */
const PIECE_BYTES = 1 << 20;

/**
 * The number of prompts of a module generated from the inputs `digest` and not changed since (its
 * seal matches its bytes), or undefined: missing or unreadable, generated from other inputs (known
 * from its first bytes alone, nothing more is read), or edited after it was generated.
 */
export async function readSealedModule(file: string, digest: string): Promise<number | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const head = Buffer.alloc(SEAL_HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const seal = checkSeal(head.subarray(0, bytesRead));
    if (seal?.digest !== digest) return undefined;
    const piece = Buffer.allocUnsafe(PIECE_BYTES);
    for (let position = seal.restOffset; ; ) {
      const { bytesRead: read } = await handle.read(piece, 0, piece.length, position);
      if (read === 0) break;
      seal.update(piece.subarray(0, read));
      position += read;
    }
    return seal.matches() ? seal.count : undefined;
  } catch {
    return undefined; // unreadable (a folder in its place): writing it says what is wrong
  } finally {
    await handle.close();
  }
}

/**
 * Resolves to true when the file was written, false when it already held exactly `content`.
 * Throws a PromptlockError naming the link when `file` (or a folder above it, below `rootDir`) is
 * a symbolic link out of the project `rootDir`, or when `file` is outside it.
 */
export async function writeIfChanged(file: string, content: string, rootDir: string): Promise<boolean> {
  await new StorePathGuard(rootDir).check(file, 'write');
  const current = await readFile(file, 'utf8').catch(() => undefined);
  if (current === content) return false;
  await mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, content);
  return true;
}
