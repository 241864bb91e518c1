/**
 * Early copies of a transaction's new files (journal.ts, `Transaction`): while a sync fetches,
 * each new snapshot's bytes are also written to a staged file in the work folder, so the apply
 * after the commit point only renames it into place. Creating thousands of files is the largest
 * cost of a first sync (docs/performance.md, "Cold sync"); this way it overlaps the network waits
 * instead of following them.
 *
 * A copy is an optimisation, never the data: the bytes are in the journal too. So a copy is not
 * fsynced, a replay after a crash never uses one (it writes the journal's bytes), and recovery
 * removes what a killed run left (they are staged files of its transaction). A copy that fails or
 * never starts only means the apply writes the journal's bytes instead.
 *
 * At most COPIES_IN_FLIGHT (the size of Node's default thread pool) are written at once, the rest
 * queued here rather than handed to the pool: the pool is shared with the journal's appends, which
 * a fetch waits on, and thousands of file creations queued in front of them would slow the fetch
 * by more than the copies save. The queue
 * holds at most QUEUED_BYTES: a copy that would exceed it (a disk slower than the network) is
 * not made, so a run never holds more snapshot text than that.
 */
import { type BigIntStats, lstatSync } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import { foldersUp } from '../util/folders-up.js';

const COPIES_IN_FLIGHT = 4;
const QUEUED_BYTES = 1024 * 1024;

/** A copy this run created: its file, and once it holds every byte, what identifies it. */
export interface EarlyCopy {
  /** The staged file, removed after the apply unless it was renamed into place. */
  file: string;
  /** Its inode and change time when it was complete; absent when its write failed. */
  written?: { ino: bigint; ctimeNs: bigint };
}

/**
 * True when `copy` is still the file this run wrote, untouched, holding `size` bytes: not a link,
 * a folder or another file put under its name while the run fetched (the work folder is input,
 * docs/security.md). A file's change time moves with any write or rename onto it and cannot be set
 * back, so a new file under the same name never matches, even on a reused inode.
 */
export function isIntactCopy(copy: EarlyCopy, size: number): boolean {
  let found: BigIntStats | undefined;
  try {
    found = lstatSync(copy.file, { bigint: true, throwIfNoEntry: false });
  } catch {
    return false;
  }
  return (
    copy.written !== undefined &&
    found !== undefined &&
    found.isFile() &&
    found.ino === copy.written.ino &&
    found.ctimeNs === copy.written.ctimeNs &&
    found.size === BigInt(size)
  );
}

/**
 * Creates `file` (exclusively: a file already there is someone else's and is left alone) holding
 * `bytes`; undefined when it could not be created. A copy cut off by a full disk is removed, and
 * named in the result in case that fails too, so the apply removes it.
 */
async function createCopy(file: string, bytes: Buffer): Promise<EarlyCopy | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'wx');
  } catch {
    return undefined;
  }
  let written: EarlyCopy['written'];
  try {
    await handle.writeFile(bytes);
    const { ino, ctimeNs } = await handle.stat({ bigint: true });
    written = { ino, ctimeNs };
  } catch {
    written = undefined;
  }
  await handle.close().catch(() => undefined);
  if (!written) await rm(file, { force: true }).catch(() => undefined);
  return written ? { file, written } : { file };
}

export class EarlyCopies {
  private readonly waiting: Array<() => void> = [];
  private readonly writing = new Set<Promise<unknown>>();
  private running = 0;
  private queuedBytes = 0;
  private closed = false;

  /** Resolves once `file` holds `bytes` (created exclusively) or failed; undefined when this run never created it. */
  write(file: string, bytes: Buffer): Promise<EarlyCopy | undefined> {
    if (this.closed || this.queuedBytes + bytes.byteLength > QUEUED_BYTES) return Promise.resolve(undefined);
    this.queuedBytes += bytes.byteLength;
    return new Promise<boolean>((resolve) => {
      if (this.running < COPIES_IN_FLIGHT) {
        this.running++;
        resolve(true);
      } else this.waiting.push(() => resolve(!this.closed));
    }).then((go) => {
      if (!go || this.closed) {
        this.queuedBytes -= bytes.byteLength;
        if (go) this.next(); // its turn came as the copies closed: pass the slot on
        return undefined;
      }
      const written = createCopy(file, bytes);
      this.writing.add(written);
      return written.finally(() => {
        this.writing.delete(written);
        this.queuedBytes -= bytes.byteLength;
        this.next();
      });
    });
  }

  private next(): void {
    const start = this.waiting.shift();
    if (start) start();
    else this.running--;
  }

  /**
   * Starts no further copy (the fetch is over: the apply writes the rest from the journal, which
   * costs no more than a copy would) and resolves once every copy started is written or failed.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const start of this.waiting.splice(0)) start();
    while (this.writing.size > 0) await Promise.all(this.writing);
  }
}

/**
 * True when a copy in `workDir` can be renamed into `snapshotsDir` (one file system; else every
 * rename would fail and each file be written twice): the snapshots folder, or the nearest folder
 * above it that exists, is on the work folder's device.
 */
export async function renamesInto(workDir: string, snapshotsDir: string): Promise<boolean> {
  try {
    const { dev } = await stat(workDir);
    for (const dir of foldersUp(snapshotsDir)) {
      const found = await stat(dir).catch(() => undefined);
      if (found) return found.dev === dev;
    }
  } catch {
    // cannot tell: no copies
  }
  return false;
}
