import { randomUUID } from 'node:crypto';
import { link, mkdir, rm, rmdir, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { asFileSystemError, PromptlockError } from '../errors.js';
import { isAlive } from '../util/is-alive.js';
import { writeFileSafely } from '../util/write-file.js';
import { readWorkFile } from './read-file.js';
import { ensureWorkDir } from './work-dir.js';

interface LockOwner {
  pid: number;
  host: string;
  command: string;
  startedAt: string;
  /** Unique per acquisition: a lock is released only by the run whose token it holds. */
  token: string;
}

/** The lock file's text, or undefined when there is none; never through a link, never more than a lock holds (read-file.ts). */
async function readLockText(file: string): Promise<string | undefined> {
  const bytes = await readWorkFile(file, 'the run lock').catch((error: unknown) => {
    throw asFileSystemError(error, 'read the run lock', file);
  });
  return bytes?.toString('utf8');
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(text) as Partial<LockOwner>;
    return typeof owner.pid === 'number' && typeof owner.host === 'string' ? (owner as LockOwner) : undefined;
  } catch {
    return undefined;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How often a holder refreshes its lock's modification time: the lock's heartbeat. */
const HEARTBEAT_MS = 10_000;
/**
 * A lock whose heartbeat stopped this long ago, held by a process this host cannot see (another
 * machine, a container that was killed), has no live holder: it is taken over. Twelve missed
 * heartbeats: a live run's refresh is never that late.
 */
const LOCK_EXPIRY_MS = 120_000;

/** Seconds since the lock file was last refreshed; 0 when it cannot be read (gone: raced for again). */
async function secondsSinceHeartbeat(file: string): Promise<number> {
  const stats = await stat(file).catch(() => undefined);
  return stats ? Math.max(0, (Date.now() - stats.mtimeMs) / 1000) : 0;
}

/** Why a readable lock held by `owner` has no live holder, or undefined while it may have one. */
async function whyStale(owner: LockOwner, file: string, me: LockOwner): Promise<string | undefined> {
  if (owner.host === me.host) return isAlive(owner.pid) ? undefined : 'its process is gone';
  const silent = await secondsSinceHeartbeat(file);
  return silent * 1000 > LOCK_EXPIRY_MS
    ? `it was written on ${owner.host} and its heartbeat stopped ${Math.round(silent)} s ago`
    : undefined;
}

/** A takeover guard older than this was left by a process that died inside its few file operations. */
const GUARD_STALE_MS = 10_000;

/**
 * Runs `task` holding `<lock>.takeover` (a folder: `mkdir` is atomic), so only one process at a time
 * may remove a stale lock. Returns false when another process holds the guard.
 */
async function withTakeoverGuard(file: string, task: () => Promise<void>): Promise<boolean> {
  const guard = `${file}.takeover`;
  try {
    await mkdir(guard);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw asFileSystemError(error, 'create', guard);
    const age = await stat(guard).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > GUARD_STALE_MS) await rmdir(guard).catch(() => undefined);
    return false;
  }
  try {
    await task();
  } finally {
    await rmdir(guard).catch(() => undefined);
  }
  return true;
}

export interface RunLock {
  release(): Promise<void>;
}

/** Another run, alive, holds the project's run lock: watch waits for it and regenerates after. */
export class RunLockHeldError extends PromptlockError {
  override name = 'RunLockHeldError';
}

export interface RunLockOptions {
  /** How often the holder refreshes the lock (default 10 s); tests make it short. */
  heartbeatMs?: number;
  /** Says a takeover of another host's lock; default: a process warning (stderr, `PROMPTLOCK_STALE_LOCK`). */
  warn?: (message: string) => void;
}

const processWarning = (message: string) => process.emitWarning(message, { code: 'PROMPTLOCK_STALE_LOCK' });

/** Keeps the lock's modification time fresh while the run holds it, so no other host takes it over (whyStale). */
function heartbeat(file: string, every: number): () => void {
  const timer = setInterval(() => {
    const now = new Date();
    utimes(file, now, now).catch(() => undefined);
  }, every);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Takes the project's run lock (`.promptlock/run.lock`) so two runs never write the store at once.
 * Our own rather than a library's: docs/architecture.md ("One run writes at a time") says why.
 * The lock is written whole to a private file and then hard-linked into place: `link` fails when
 * the name exists, so exactly one of any number of racing runs gets it, and nobody ever reads a
 * half-written lock. The holder refreshes the lock's modification time every few seconds (its
 * heartbeat). A lock left by a process that no longer exists on this host, or written on another
 * host (a CI machine, a killed container) whose heartbeat stopped LOCK_EXPIRY_MS ago, is taken
 * over, with a warning on stderr: under a takeover guard, the stale lock is removed only if it
 * still holds exactly the bytes judged stale, then the race for the name starts again. A live one
 * makes this run fail with a clear message. `release` removes the lock only while it still holds
 * this run's token.
 */
export async function acquireRunLock(rootDir: string, command: string, options: RunLockOptions = {}): Promise<RunLock> {
  const file = path.join(await ensureWorkDir(rootDir), 'run.lock');
  const me: LockOwner = { pid: process.pid, host: hostname(), command, startedAt: new Date().toISOString(), token: randomUUID() };
  const mine = JSON.stringify(me);
  const temp = `${file}.${me.token}`;
  try {
    await writeFileSafely(temp, mine, { refusal: PromptlockError, exclusive: true });
  } catch (error) {
    throw asFileSystemError(error, 'write the run lock', temp);
  }
  try {
    let unreadable: string | undefined;
    for (let attempt = 0; attempt < 200; attempt++) {
      try {
        await link(temp, file);
        const stop = heartbeat(file, options.heartbeatMs ?? HEARTBEAT_MS);
        return {
          release: () => {
            stop();
            return releaseIfMine(file, me.token);
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw asFileSystemError(error, 'create the run lock', file);
      }
      const text = await readLockText(file);
      if (text === undefined) continue; // released just now: race for it again
      const owner = parseOwner(text);
      let stale: boolean;
      let why: string | undefined;
      if (owner === undefined) {
        // Locks are linked in whole, so unreadable bytes are damage (or an old version writing):
        // stale once they stay the same across a look a moment later.
        stale = unreadable === text;
        unreadable = text;
      } else {
        why = await whyStale(owner, file, me);
        stale = why !== undefined;
      }
      if (!stale) {
        if (owner === undefined) {
          await pause(50);
          continue;
        }
        throw new RunLockHeldError(
          `Another promptlock ${owner.command} is running in this project (pid ${owner.pid}${owner.host === me.host ? '' : ` on ${owner.host}`}, started ${owner.startedAt}).`,
          {
            hint:
              owner.host === me.host
                ? `Wait for it to finish. If no such process exists, delete ${path.relative(rootDir, file) || file}.`
                : `Wait for it to finish. A lock from another host with no live run expires ${LOCK_EXPIRY_MS / 1000} s after its last heartbeat; or delete ${path.relative(rootDir, file) || file}.`,
          },
        );
      }
      const took = await withTakeoverGuard(file, async () => {
        // Still the very lock judged stale? Another run may have taken it over and linked its own.
        if ((await readLockText(file)) !== text) return;
        await unlink(file).catch(() => undefined);
        if (owner && owner.host !== me.host) {
          (options.warn ?? processWarning)(
            `promptlock took over the run lock of ${owner.command} (pid ${owner.pid}, started ${owner.startedAt}): ${why}.`,
          );
        }
      });
      if (!took) await pause(5 + Math.random() * 20);
    }
    throw new PromptlockError(`Could not take the run lock ${file}.`, { hint: 'Delete it if no promptlock is running.' });
  } finally {
    await rm(temp, { force: true });
  }
}

/** Removes the lock only if it is still this run's (a lock taken over meanwhile is left alone). */
async function releaseIfMine(file: string, token: string): Promise<void> {
  const text = await readLockText(file).catch(() => undefined);
  if (text !== undefined && parseOwner(text)?.token === token) await rm(file, { force: true });
}
