/**
 * The one way promptlock reads a file of the project (docs/security.md, "Files on disk"). A file
 * that came with a checkout may be a link to a device (/dev/zero never ends: a plain read grew by
 * ~900 MB/s), a FIFO (it never answers: `prepare`, so `npm install`, hung) or simply huge. So
 * every read:
 * 1. opens without waiting (`O_NONBLOCK`: a FIFO with no writer opens at once) and, where no link
 *    is ever legitimate (a journal, the run lock, a snapshot), without following one
 *    (`O_NOFOLLOW`: a link fails to open, and is named);
 * 2. reads only a regular file, as `fstat` of what was opened says (no race between a check and
 *    the read);
 * 3. reads at most `maxBytes`, whatever the size said (a file may grow while it is read).
 * What a rule allows beyond that (a link that stays inside the project) is checked by the caller
 * before the read (the store's path guard, src/store/paths.ts).
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats, statSync } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';

/**
 * The most bytes promptlock reads from one file of the project, by kind (docs/security.md, "Files
 * on disk"). A file that came with a checkout may be huge or endless (a link to /dev/zero): every
 * read stops here. Where a limit of the config bounds what a file holds, its cap follows that limit
 * (the snapshots folder's: `storeFileBytes` in src/limits.ts); these are fixed far above any real file.
 */
export const FILE_BYTES = Object.freeze({
  /** A config file, or the package.json that may hold one: a list of prompts and a few options. */
  config: 16 * 1024 * 1024,
  /** The lockfile: a few hundred bytes per locked prompt. */
  lockfile: 256 * 1024 * 1024,
  /** The generated module (and its declarations): every locked prompt's text, once. */
  module: 256 * 1024 * 1024,
  /** A small file of promptlock's work folder: the run lock, a journal's failure marker, `.gitignore`. */
  workFile: 64 * 1024,
  /** A journal: the new bytes of every file one sync writes (a regular file of promptlock's own, never a link); the largest buffer Node reads. */
  journal: 2 ** 31 - 1,
});

/** How one kind of file is read. */
export interface ReadRule {
  /** The file's kind, as messages name it: "the lockfile", "a journal", "an env file". */
  what: string;
  /** The most bytes it may hold. */
  maxBytes: number;
  /** Whether the file itself may be a symbolic link (followed to a regular file), or is refused as one. */
  links: 'follow' | 'refuse';
  /** What to do about a refused file, printed under the error. */
  fix: string;
  /** The error a refusal is thrown as: a ConfigError for the config and env files (exit 2), say. */
  refusal: new (
    message: string,
    options: { hint?: string },
  ) => Error;
}

const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
/** `O_NOFOLLOW` where the platform has it; elsewhere a link is told apart by the `lstat` below. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** True for the error of opening a link with O_NOFOLLOW (ELOOP; EMLINK on some BSDs). */
const isLinkError = (error: unknown) => ['ELOOP', 'EMLINK'].includes((error as NodeJS.ErrnoException).code ?? '');

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

function refuse(file: string, rule: ReadRule, why: string): Error {
  return new rule.refusal(`Refusing to read ${file}: ${why}.`, { hint: rule.fix });
}

/** A file that does not exist reads as undefined; a link refused by O_NOFOLLOW is named; anything else is thrown as it is. */
function openFailed(file: string, rule: ReadRule, error: unknown): undefined {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  if (rule.links === 'refuse' && isLinkError(error)) throw linkRefusal(file, rule);
  throw error;
}

const linkRefusal = (file: string, rule: ReadRule) =>
  refuse(file, rule, `it is a symbolic link, and promptlock reads ${rule.what} only from the file itself`);

function checkKind(file: string, stats: Stats, rule: ReadRule): void {
  if (!stats.isFile()) {
    const error = refuse(file, rule, `it is ${kindOf(stats)}, and promptlock reads ${rule.what} only from a regular file`);
    // A folder keeps the code a plain read of it fails with, for readers that take one as no file at all.
    throw stats.isDirectory() ? Object.assign(error, { code: 'EISDIR' }) : error;
  }
  if (stats.size > rule.maxBytes) throw tooBig(file, rule);
}

const tooBig = (file: string, rule: ReadRule) =>
  refuse(file, rule, `it holds more than ${rule.maxBytes} bytes, the most promptlock reads from ${rule.what}`);

/** Reads through `read` until the end, or one byte past the cap (then refused). */
function collect(file: string, rule: ReadRule, size: number, read: (buffer: Buffer, at: number) => number): Buffer;
function collect(file: string, rule: ReadRule, size: number, read: (buffer: Buffer, at: number) => Promise<number>): Promise<Buffer>;
function collect(
  file: string,
  rule: ReadRule,
  size: number,
  read: (buffer: Buffer, at: number) => number | Promise<number>,
): Buffer | Promise<Buffer> {
  // Sized for what fstat said (one read, usually), plus one byte to see the end or a file that grew.
  let buffer = Buffer.allocUnsafe(Math.min(size, rule.maxBytes) + 1);
  let length = 0;
  const step = (n: number): Buffer | undefined => {
    length += n;
    if (length > rule.maxBytes) throw tooBig(file, rule);
    if (n === 0) return buffer.subarray(0, length);
    if (length === buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, rule.maxBytes + 1));
      buffer.copy(grown);
      buffer = grown;
    }
    return undefined;
  };
  const first = read(buffer, 0);
  if (typeof first === 'number') {
    for (let n = first; ; n = read(buffer, length) as number) {
      const done = step(n);
      if (done) return done;
    }
  }
  return (async () => {
    for (let n = await first; ; n = await read(buffer, length)) {
      const done = step(n);
      if (done) return done;
    }
  })();
}

/** `file` opened by `rule` (steps 1 and 2 above, and its size within the cap); undefined when it does not exist. The caller closes it. */
async function openBounded(file: string, rule: ReadRule): Promise<{ handle: FileHandle; size: number } | undefined> {
  let handle: FileHandle;
  try {
    if (rule.links === 'refuse' && NO_FOLLOW === 0 && (await lstat(file)).isSymbolicLink()) throw linkRefusal(file, rule);
    handle = await open(file, FLAGS | (rule.links === 'refuse' ? NO_FOLLOW : 0));
  } catch (error) {
    return openFailed(file, rule, error);
  }
  try {
    const stats = await handle.stat();
    checkKind(file, stats, rule);
    return { handle, size: stats.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * The bytes of `file` read by `rule`; undefined when it does not exist. A link, a file that is not
 * a regular file, or one over the cap is refused (`rule.refusal`, naming the file); any other
 * failure (no permission, a path through a file) is thrown as it is.
 */
export async function readBounded(file: string, rule: ReadRule): Promise<Buffer | undefined> {
  const opened = await openBounded(file, rule);
  if (!opened) return undefined;
  const { handle, size } = opened;
  try {
    return await collect(file, rule, size, async (buffer, at) => (await handle.read(buffer, at, buffer.length - at, null)).bytesRead);
  } finally {
    await handle.close();
  }
}

/** The same, synchronous (generate reads thousands of small snapshots, and env files are read before anything else). */
export function readBoundedSync(file: string, rule: ReadRule): Buffer | undefined {
  let fd: number;
  try {
    if (rule.links === 'refuse' && NO_FOLLOW === 0 && lstatSync(file).isSymbolicLink()) throw linkRefusal(file, rule);
    fd = openSync(file, FLAGS | (rule.links === 'refuse' ? NO_FOLLOW : 0));
  } catch (error) {
    return openFailed(file, rule, error);
  }
  try {
    const stats = fstatSync(fd);
    checkKind(file, stats, rule);
    return collect(file, rule, stats.size, (buffer, at) => readSync(fd, buffer, at, buffer.length - at, null));
  } finally {
    closeSync(fd);
  }
}

/**
 * Checks, without opening it, that `file` would be read by `rule` (a library reads it: cosmiconfig
 * reads the config files it finds): true when it exists, false when it does not; a file the rule
 * refuses throws as `readBounded` would.
 */
export function inspectBoundedSync(file: string, rule: ReadRule): boolean {
  const stats = (rule.links === 'refuse' ? lstatSync : statSync)(file, { throwIfNoEntry: false });
  if (!stats) return false;
  if (stats.isSymbolicLink()) throw linkRefusal(file, rule);
  checkKind(file, stats, rule);
  return true;
}
