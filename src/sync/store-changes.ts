/** Turns a new lockfile and its snapshots into the list of file changes of one transaction. */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { StoreChange } from '../store/commit-changes.js';
import { encodeLockfile, type Lockfile } from '../store/lockfile-format.js';
import { contextFilesDir, snapshotPath } from '../store/paths.js';
import type { FetchedPrompt } from './fetch-prompt.js';

const SLUG = /^[a-z0-9-]+$/;

/** Snapshot files in the folder (`<ws>/<pkg>.json` only: the folder may hold other files). */
async function snapshotFilesOnDisk(snapshotsDir: string): Promise<string[]> {
  const names: string[] = [];
  let workspaces: string[];
  try {
    workspaces = await readdir(snapshotsDir);
  } catch {
    return names;
  }
  for (const ws of workspaces.filter((w) => SLUG.test(w))) {
    let files: string[];
    try {
      files = await readdir(path.join(snapshotsDir, ws));
    } catch {
      continue;
    }
    for (const file of files) {
      const match = /^([a-z0-9-]+)\.json$/.exec(file);
      if (match) names.push(`@${ws}/${match[1]}`);
    }
  }
  return names;
}

export interface PlanInput {
  snapshotsDir: string;
  lockfilePath: string;
  outputPath: string;
  previous: Lockfile;
  next: Lockfile;
  fetched: readonly FetchedPrompt[];
  moduleText: string | undefined;
  /** Remove snapshots of prompts that are not in `next` (not for partial syncs). */
  prune: boolean;
}

export async function planStoreChanges(input: PlanInput): Promise<StoreChange[]> {
  const { snapshotsDir } = input;
  const changes: StoreChange[] = [];
  const toFile = (relative: string) => path.join(snapshotsDir, ...relative.split('/'));

  // Deletions first: a context file may be dropped and a new one written in the same folder.
  for (const [name, old] of Object.entries(input.previous.prompts)) {
    const kept = input.next.prompts[name];
    if (!kept) continue;
    const keptPaths = new Set(Object.values(kept.files ?? {}).map((f) => f.path));
    for (const file of Object.values(old.files ?? {})) {
      if (!keptPaths.has(file.path)) changes.push({ kind: 'delete', path: toFile(file.path), pruneUpTo: snapshotsDir });
    }
  }
  if (input.prune) {
    const stale = new Set([...Object.keys(input.previous.prompts), ...(await snapshotFilesOnDisk(snapshotsDir))]);
    for (const name of [...stale].sort()) {
      if (input.next.prompts[name]) continue;
      changes.push({ kind: 'delete', path: contextFilesDir(snapshotsDir, name), pruneUpTo: snapshotsDir });
      changes.push({ kind: 'delete', path: snapshotPath(snapshotsDir, name), pruneUpTo: snapshotsDir });
    }
  }
  for (const prompt of input.fetched) {
    changes.push({ kind: 'write', path: snapshotPath(snapshotsDir, prompt.name), content: prompt.snapshot });
    for (const file of prompt.files) changes.push({ kind: 'write', path: toFile(file.path), content: file.content });
  }
  changes.push({ kind: 'write', path: input.lockfilePath, content: encodeLockfile(input.next) });
  if (input.moduleText !== undefined) changes.push({ kind: 'write', path: input.outputPath, content: input.moduleText });
  return changes;
}
