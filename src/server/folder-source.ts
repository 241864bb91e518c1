/**
 * The served folder, kept current. A full read at start and on `reload()`; in between, one
 * `fs.watch` per folder marks the packages whose files changed, and only those are read again
 * (a 2,000-prompt folder is not rescanned because one snapshot changed). A package that fails to
 * read on an automatic reload keeps its last good state and the problem is reported as a warning.
 */
import { type FSWatcher, promises as fs, watch } from 'node:fs';
import path from 'node:path';
import { AggregatePromptlockError, PromptlockError } from '../errors.js';
import { basePackageName } from '../package-name.js';
import { eachLimited } from '../util/each-limited.js';
import { buildCatalog, type Catalog } from './catalog.js';
import { loadPackage } from './load-package.js';
import type { LoadedPackage } from './loaded-package.js';
import { listPackages, listWorkspaces } from './scan-folder.js';

export interface FolderSource {
  readonly catalog: Catalog;
  /** Reads the whole folder again; rejects (keeping the last good state) when it cannot. */
  reload(): Promise<void>;
  close(): void;
}

/** Beyond this many folders, changes are picked up by `reload()` only. */
const MAX_WATCHED_FOLDERS = 50_000;
const DEBOUNCE_MS = 60;
const ROOT_POLL_MS = 1_000;

const keyOf = (workspace: string, pkg: string) => `${workspace}/${pkg}`;

function gathered(errors: PromptlockError[]): PromptlockError {
  return errors.length === 1
    ? errors[0]!
    : new AggregatePromptlockError(`${errors.length} prompts in the served folder cannot be read:`, errors);
}

function asPromptlockError(error: unknown): PromptlockError {
  return error instanceof PromptlockError ? error : new PromptlockError(String((error as Error)?.message ?? error), { cause: error });
}

async function readAll(root: string): Promise<Map<string, LoadedPackage>> {
  const packages = new Map<string, LoadedPackage>();
  const errors: PromptlockError[] = [];
  const names: Array<[string, string]> = [];
  for (const workspace of await listWorkspaces(root)) {
    for (const pkg of await listPackages(root, workspace)) names.push([workspace, pkg]);
  }
  await eachLimited(names, 16, async ([workspace, pkg]) => {
    try {
      const loaded = await loadPackage(root, workspace, pkg);
      if (loaded) packages.set(keyOf(workspace, pkg), loaded);
    } catch (error) {
      errors.push(asPromptlockError(error));
    }
  });
  if (errors.length > 0) throw gathered(errors);
  return packages;
}

async function inodeOf(dir: string): Promise<number | undefined> {
  return fs.stat(dir).then(
    (stat) => stat.ino,
    () => undefined,
  );
}

/** The folders to watch: the root, each workspace folder, and each package's folders. */
function watchedFolders(root: string, packages: ReadonlyMap<string, { workspace: string; dirs: readonly string[] }>): Set<string> {
  const wanted = new Set<string>([root]);
  for (const workspace of new Set([...packages.values()].map((p) => p.workspace))) wanted.add(path.join(root, workspace));
  for (const loaded of packages.values()) for (const folder of loaded.dirs) wanted.add(folder);
  return wanted;
}

/** Closes the watchers of folders no longer wanted and opens those of new ones, up to MAX_WATCHED_FOLDERS (`onCap` past it). */
function watchFolders(
  wanted: ReadonlySet<string>,
  watchers: Map<string, FSWatcher>,
  onEvent: (folder: string, filename: string | null) => void,
  onCap: () => void,
): void {
  for (const [folder, watcher] of watchers) {
    if (!wanted.has(folder)) {
      watcher.close();
      watchers.delete(folder);
    }
  }
  for (const folder of wanted) {
    if (watchers.has(folder)) continue;
    if (watchers.size >= MAX_WATCHED_FOLDERS) {
      onCap();
      break;
    }
    try {
      const watcher = watch(folder, { persistent: false }, (_event, filename) => onEvent(folder, filename));
      watcher.on('error', () => {
        watcher.close();
        watchers.delete(folder);
      });
      watchers.set(folder, watcher);
    } catch {
      // The folder vanished between the read and now; the event that removed it is on its way.
    }
  }
}

/** The packages of `workspace` added to or removed from its folder since `packages` was read. */
async function addedOrRemoved(root: string, workspace: string, packages: ReadonlyMap<string, unknown>): Promise<string[]> {
  const present = new Set(await listPackages(root, workspace).catch(() => [] as string[]));
  const names: string[] = [];
  for (const key of packages.keys()) if (key.startsWith(`${workspace}/`) && !present.has(key.slice(workspace.length + 1))) names.push(key);
  for (const pkg of present) if (!packages.has(keyOf(workspace, pkg))) names.push(keyOf(workspace, pkg));
  return names;
}

/** Opens `dir` for serving. Throws a `ConfigError` (or several, gathered) when it cannot be read. */
export async function openFolderSource(dir: string, warn: (message: string) => void): Promise<FolderSource> {
  const root = path.resolve(dir);
  let packages = await readAll(root);
  let catalog = buildCatalog([...packages.values()]);
  let closed = false;
  let queue: Promise<void> = Promise.resolve();
  const watchers = new Map<string, FSWatcher>();
  const dirtyPackages = new Set<string>();
  const dirtyWorkspaces = new Set<string>();
  let dirtyAll = false;
  let debounce: NodeJS.Timeout | undefined;
  let rootInode = await inodeOf(root);
  let warnedCap = false;

  const publish = () => {
    catalog = buildCatalog([...packages.values()]);
  };

  const enqueue = (work: () => Promise<void>): Promise<void> => {
    const run = queue.then(work);
    queue = run.catch(() => undefined);
    return run;
  };

  function onEvent(folder: string, filename: string | null): void {
    const segments = path.relative(root, folder).split(path.sep).filter(Boolean);
    if (filename === null) dirtyAll = true;
    else if (segments.length === 0) dirtyWorkspaces.add(filename);
    else {
      const workspace = segments[0]!;
      const entry = segments.length === 1 ? filename : segments[1]!;
      dirtyPackages.add(keyOf(workspace, entry.replace(/\.(json|files)$/, '')));
      if (segments.length === 1) dirtyWorkspaces.add(workspace);
    }
    clearTimeout(debounce);
    debounce = setTimeout(() => void enqueue(applyChanges), DEBOUNCE_MS);
  }

  function syncWatchers(): void {
    watchFolders(watchedFolders(root, packages), watchers, onEvent, () => {
      if (!warnedCap) warn(`watching only ${MAX_WATCHED_FOLDERS} folders; later changes need a reload`);
      warnedCap = true;
    });
  }

  async function reloadAll(): Promise<void> {
    const fresh = await readAll(root);
    if (closed) return;
    packages = fresh;
    rootInode = await inodeOf(root);
    // Watchers follow inodes: after a full read, start them afresh in case folders were replaced.
    for (const watcher of watchers.values()) watcher.close();
    watchers.clear();
    publish();
    syncWatchers();
  }

  async function applyChanges(): Promise<void> {
    if (closed) return;
    if (dirtyAll) {
      dirtyAll = false;
      dirtyPackages.clear();
      dirtyWorkspaces.clear();
      await reloadAll().catch((error) => warn(`the served folder could not be re-read: ${asPromptlockError(error).message}`));
      return;
    }
    const names = new Set(dirtyPackages);
    dirtyPackages.clear();
    for (const workspace of dirtyWorkspaces) for (const key of await addedOrRemoved(root, workspace, packages)) names.add(key);
    dirtyWorkspaces.clear();
    for (const key of names) {
      const [workspace, pkg] = key.split('/') as [string, string];
      try {
        const loaded = await loadPackage(root, workspace, pkg);
        if (loaded) packages.set(key, loaded);
        else packages.delete(key);
      } catch (error) {
        warn(`${basePackageName({ workspace, package: pkg })} is served as it was: ${asPromptlockError(error).message}`);
      }
    }
    if (closed) return;
    publish();
    syncWatchers();
  }

  syncWatchers();
  // A folder replaced as a whole (renamed over) is invisible to watchers on the old inode.
  const rootPoll = setInterval(() => {
    void inodeOf(root).then((inode) => {
      if (!closed && inode !== rootInode) {
        rootInode = inode;
        dirtyAll = true;
        void enqueue(applyChanges);
      }
    });
  }, ROOT_POLL_MS);
  rootPoll.unref();

  return {
    get catalog() {
      return catalog;
    },
    reload: () => enqueue(reloadAll),
    close() {
      closed = true;
      clearTimeout(debounce);
      clearInterval(rootPoll);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
