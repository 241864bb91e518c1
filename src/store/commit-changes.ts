/**
 * All writes of one run land together or not at all. Changes are staged as files in a journal
 * folder under `.promptlock/`; writing `journal.json` (atomically, by rename) is the commit point.
 * Only then are staged files renamed over their targets. A run killed before the commit point
 * leaves the previous files untouched; one killed after it is rolled forward by the next run
 * (`recoverStore`), and readers in between see the committed state through `openStoreView`.
 */
import { copyFile, mkdir, open, readdir, readFile, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { ensureWorkDir, workDirOf } from './work-dir.js';

export type StoreChange =
  | { kind: 'write'; path: string; content: string | Uint8Array }
  /** Removes a file or folder; `pruneUpTo` also removes parent folders left empty, up to (not including) that folder. */
  | { kind: 'delete'; path: string; pruneUpTo?: string };

interface JournalOp {
  kind: 'write' | 'delete';
  target: string;
  staged?: string;
  pruneUpTo?: string;
}

const JOURNAL = 'journal.json';

async function readIfExists(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
    throw error;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await readdir(file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return true;
    if (code === 'ENOENT') return false;
    throw error;
  }
}

async function writeDurable(file: string, content: string | Uint8Array): Promise<void> {
  const handle = await open(file, 'w');
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Renames a staged file over its target (whose folder exists). */
async function moveInto(staged: string, target: string): Promise<void> {
  try {
    await rename(staged, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    // Target on another file system: copy next to it, then rename there (still atomic per file).
    const temp = `${target}.promptlock-tmp`;
    await copyFile(staged, temp);
    await rename(temp, target);
    await rm(staged, { force: true });
  }
}

async function pruneEmptyParents(target: string, stopAt: string): Promise<void> {
  let dir = path.dirname(target);
  while (dir.startsWith(stopAt + path.sep) && dir !== stopAt) {
    try {
      await rmdir(dir);
    } catch {
      return; // not empty (or already gone)
    }
    dir = path.dirname(dir);
  }
}

/**
 * Failpoint for the crash tests: `PROMPTLOCK_FAILPOINT_APPLY=N` kills this process (SIGKILL, as a
 * power cut would) after N operations of a committed journal were applied.
 */
function failpoint(applied: number): void {
  const at = process.env.PROMPTLOCK_FAILPOINT_APPLY;
  if (at !== undefined && Number(at) === applied) process.kill(process.pid, 'SIGKILL');
}

async function applyJournal(txDir: string, ops: readonly JournalOp[]): Promise<void> {
  const madeDirs = new Set<string>();
  for (const [applied, op] of ops.entries()) {
    failpoint(applied);
    if (op.kind === 'write') {
      const staged = path.join(txDir, op.staged!);
      const dir = path.dirname(op.target);
      if (!madeDirs.has(dir)) {
        await mkdir(dir, { recursive: true });
        madeDirs.add(dir);
      }
      try {
        await moveInto(staged, op.target);
      } catch (error) {
        // Already moved by an earlier, interrupted apply: the staged file is gone, the target there.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !(await exists(op.target))) throw error;
      }
    } else {
      await rm(op.target, { recursive: true, force: true });
      if (op.pruneUpTo) await pruneEmptyParents(op.target, op.pruneUpTo);
    }
  }
  await rm(txDir, { recursive: true, force: true });
}

/** Runs `task` over `items` with at most `limit` in flight (file writes: the disk likes a queue). */
async function eachLimited<T>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Files written (and fsynced) at once while staging: measured 2,000 files 1.8–2.4 s serial, ~0.5 s at 32. */
const WRITE_PARALLELISM = 32;

export interface CommitResult {
  written: string[];
  deleted: string[];
}

/**
 * Applies `changes` as one transaction. Writes whose content equals the file on disk and deletes
 * of paths that do not exist are dropped, so an unchanged run touches no file.
 */
export async function commitChanges(rootDir: string, changes: readonly StoreChange[]): Promise<CommitResult> {
  const keep = new Array<boolean>(changes.length).fill(true);
  await eachLimited(changes, WRITE_PARALLELISM, async (change, index) => {
    if (change.kind === 'write') {
      const current = await readIfExists(change.path);
      if (current && current.equals(typeof change.content === 'string' ? Buffer.from(change.content) : change.content)) keep[index] = false;
    } else if (!(await exists(change.path))) {
      keep[index] = false;
    }
  });
  const effective = changes.filter((_, index) => keep[index]);
  const result: CommitResult = {
    written: effective.filter((c) => c.kind === 'write').map((c) => c.path),
    deleted: effective.filter((c) => c.kind === 'delete').map((c) => c.path),
  };
  if (effective.length === 0) return result;

  const workDir = await ensureWorkDir(rootDir);
  const txDir = path.join(workDir, `tx-${process.pid}-${Date.now()}`);
  await mkdir(txDir, { recursive: true });
  const ops: JournalOp[] = effective.map((change, index) =>
    change.kind === 'write'
      ? { kind: 'write', target: change.path, staged: `${index}.staged` }
      : { kind: 'delete', target: change.path, ...(change.pruneUpTo ? { pruneUpTo: change.pruneUpTo } : {}) },
  );
  await eachLimited(effective, WRITE_PARALLELISM, async (change, index) => {
    if (change.kind === 'write') await writeDurable(path.join(txDir, ops[index]!.staged!), change.content);
  });
  await writeDurable(path.join(txDir, `${JOURNAL}.tmp`), JSON.stringify({ ops }));
  await rename(path.join(txDir, `${JOURNAL}.tmp`), path.join(txDir, JOURNAL)); // the commit point
  await applyJournal(txDir, ops);
  return result;
}

async function pendingJournals(rootDir: string): Promise<Array<{ txDir: string; ops: JournalOp[] | undefined }>> {
  const workDir = workDirOf(rootDir);
  let names: string[];
  try {
    names = (await readdir(workDir)).filter((name) => name.startsWith('tx-')).sort();
  } catch {
    return [];
  }
  const out = [];
  for (const name of names) {
    const txDir = path.join(workDir, name);
    const journal = await readIfExists(path.join(txDir, JOURNAL));
    out.push({ txDir, ops: journal ? ((JSON.parse(journal.toString('utf8')) as { ops: JournalOp[] }).ops) : undefined });
  }
  return out;
}

/**
 * Finishes what an interrupted run committed and discards what it had not. Call with the run lock
 * held, before reading the store to change it. Returns true when something was recovered.
 */
export async function recoverStore(rootDir: string): Promise<boolean> {
  let recovered = false;
  for (const { txDir, ops } of await pendingJournals(rootDir)) {
    if (ops) {
      await applyJournal(txDir, ops);
      recovered = true;
    } else {
      await rm(txDir, { recursive: true, force: true });
    }
  }
  return recovered;
}

/** Reads store files as the last committed run left them, without writing anything. */
export interface StoreView {
  readFile(file: string): Promise<Buffer | undefined>;
}

export async function openStoreView(rootDir: string): Promise<StoreView> {
  const overlay = new Map<string, string | null>();
  for (const { txDir, ops } of await pendingJournals(rootDir)) {
    for (const op of ops ?? []) {
      if (op.kind === 'delete') {
        overlay.set(op.target, null);
        for (const key of overlay.keys()) if (key.startsWith(op.target + path.sep)) overlay.set(key, null);
      } else {
        const staged = path.join(txDir, op.staged!);
        if (await readIfExists(staged)) overlay.set(op.target, staged);
      }
    }
  }
  return {
    async readFile(file) {
      const redirected = overlay.get(file);
      if (redirected === null) return undefined;
      if (redirected !== undefined) return readIfExists(redirected);
      for (const [target, staged] of overlay) {
        if (staged === null && file.startsWith(target + path.sep)) return undefined;
      }
      return readIfExists(file);
    },
  };
}

/** True when an interrupted run left a journal behind (cheap: one readdir, no writes). */
export async function hasPendingJournal(rootDir: string): Promise<boolean> {
  try {
    return (await readdir(workDirOf(rootDir))).some((name) => name.startsWith('tx-'));
  } catch {
    return false;
  }
}
