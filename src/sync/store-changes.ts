/** Turns a new lockfile and its snapshots into the list of file changes of one transaction. */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { basePackageName } from '../package-name.js';
import type { StoreChange, StoreView } from '../store/journal.js';
import { encodeLockfile, type Lockfile } from '../store/lockfile-format.js';
import { contextFilePath, snapshotPath } from '../store/paths.js';
import { decodeSnapshot } from '../store/snapshot-format.js';
import type { FetchedPrompt } from './types.js';

const SLUG = /^[a-z0-9-]+$/;

/**
 * Snapshot files promptlock wrote that no lockfile entry covers any more (left by a run whose
 * lockfile was reverted, say). Only `<ws>/<pkg>.json` files that decode as a snapshot of exactly
 * that package count: the folder may hold anything else, and that is never touched. Symbolic links
 * are not promptlock's either: never followed, never counted. Files are read through `view`, so a
 * snapshot that an interrupted run's committed journal deletes is no orphan.
 */
export async function orphanSnapshots(view: StoreView, snapshotsDir: string, locked: Lockfile): Promise<string[]> {
  const names: string[] = [];
  let workspaces;
  try {
    workspaces = await readdir(snapshotsDir, { withFileTypes: true });
  } catch {
    return names;
  }
  for (const ws of workspaces.filter((w) => w.isDirectory() && SLUG.test(w.name)).map((w) => w.name)) {
    let files;
    try {
      files = await readdir(path.join(snapshotsDir, ws), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const file of files.filter((f) => f.isFile()).map((f) => f.name)) {
      const match = /^([a-z0-9-]+)\.json$/.exec(file);
      const name = match ? basePackageName({ workspace: ws, package: match[1]! }) : undefined;
      if (!name || locked.prompts[name]) continue;
      const bytes = await view.readFile(path.join(snapshotsDir, ws, file));
      if (bytes === undefined) continue;
      try {
        const prompt = decodeSnapshot(bytes.toString('utf8'), file);
        if (prompt.packageName.split(':')[0] === name) names.push(name);
      } catch {
        // Not a snapshot: not ours.
      }
    }
  }
  return names;
}

/**
 * Every file (or link, or anything else but a folder) under the snapshots folder that is neither
 * the snapshot of a locked prompt nor one of its locked context files, sorted. Links are listed,
 * never followed.
 */
export async function unaccountedFiles(snapshotsDir: string, locked: Lockfile): Promise<string[]> {
  const accounted = new Set<string>();
  for (const [name, entry] of Object.entries(locked.prompts)) {
    accounted.add(snapshotPath(snapshotsDir, name));
    for (const file of Object.values(entry.files ?? {})) {
      try {
        accounted.add(contextFilePath(snapshotsDir, name, file.path));
      } catch {
        // A path the lockfile may not name: reported as the snapshot's problem.
      }
    }
  }
  let entries;
  try {
    entries = await readdir(snapshotsDir, { recursive: true, withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !accounted.has(file))
    .sort();
}

/** The files of one fetched prompt: its snapshot and its context files (staged as soon as it is fetched). */
export function fetchedChanges(snapshotsDir: string, prompt: FetchedPrompt): StoreChange[] {
  // Every context file path is checked to be one plain name in its package's `.files` folder
  // before anything is staged (a context id ".." must not reach the workspace folder).
  if (prompt.snapshot === undefined) throw new Error(`fetchedChanges: ${prompt.name} was staged already`);
  const changes: StoreChange[] = [{ kind: 'write', path: snapshotPath(snapshotsDir, prompt.name), content: prompt.snapshot }];
  for (const file of prompt.files)
    changes.push({ kind: 'write', path: contextFilePath(snapshotsDir, prompt.name, file.path), content: file.content });
  return changes;
}

export interface PlanInput {
  view: StoreView;
  snapshotsDir: string;
  lockfilePath: string;
  previous: Lockfile;
  next: Lockfile;
  /** The module's files (a `.js` output's `.d.ts` too). */
  moduleFiles: ReadonlyArray<{ path: string; content: string }>;
  /** Remove snapshots of prompts that are not in `next` (not for partial syncs). */
  prune: boolean;
}

/**
 * The changes of a transaction once every fetched prompt is staged (`fetchedChanges`): the files
 * no longer locked, the lockfile and the module.
 */
export async function planStoreChanges(input: PlanInput): Promise<StoreChange[]> {
  const { snapshotsDir } = input;
  const changes: StoreChange[] = [];
  const toFile = (name: string, relative: string) => contextFilePath(snapshotsDir, name, relative);

  for (const [name, old] of Object.entries(input.previous.prompts)) {
    const kept = input.next.prompts[name];
    if (!kept) continue;
    const keptPaths = new Set(Object.values(kept.files ?? {}).map((f) => f.path));
    for (const file of Object.values(old.files ?? {})) {
      if (!keptPaths.has(file.path)) changes.push({ kind: 'delete', path: toFile(name, file.path), pruneUpTo: snapshotsDir });
    }
  }
  if (input.prune) {
    // Only what promptlock wrote: the previous lockfile's snapshots and their locked files, and
    // orphaned snapshots of exactly their package. Never whole folders.
    const dropped = Object.keys(input.previous.prompts).filter((name) => !input.next.prompts[name]);
    for (const name of dropped.sort()) {
      for (const file of Object.values(input.previous.prompts[name]!.files ?? {})) {
        changes.push({ kind: 'delete', path: toFile(name, file.path), pruneUpTo: snapshotsDir });
      }
      changes.push({ kind: 'delete', path: snapshotPath(snapshotsDir, name), pruneUpTo: snapshotsDir });
    }
    for (const name of await orphanSnapshots(input.view, snapshotsDir, {
      ...input.previous,
      prompts: { ...input.previous.prompts, ...input.next.prompts },
    })) {
      changes.push({ kind: 'delete', path: snapshotPath(snapshotsDir, name), pruneUpTo: snapshotsDir });
    }
  }
  changes.push({ kind: 'write', path: input.lockfilePath, content: encodeLockfile(input.next) });
  for (const file of input.moduleFiles) changes.push({ kind: 'write', path: file.path, content: file.content });
  return changes;
}
