/**
 * Watches the config file, the lockfile and the snapshots folder (chokidar 5: folders and files, no
 * globs, filtered here) and reports debounced batches of changes. chokidar is loaded only here, so
 * other commands never pay for it.
 */
import path from 'node:path';
import { WORK_DIR_NAME } from '../store/work-dir.js';

export interface WatchedPaths {
  configPath: string;
  lockfilePath: string;
  snapshotsDir: string;
}

export interface FileWatcher {
  ready: Promise<void>;
  /** Watch other paths (after a config edit moved them). */
  update(paths: WatchedPaths): void;
  close(): Promise<void>;
}

function list(paths: WatchedPaths): string[] {
  return [paths.configPath, paths.lockfilePath, paths.snapshotsDir];
}

/** Whether `file` is something the module is built from (temporary and work files are not). */
function isStoreFile(paths: WatchedPaths, file: string): boolean {
  if (file === paths.lockfilePath) return true;
  if (!file.startsWith(paths.snapshotsDir + path.sep)) return false;
  return file.endsWith('.json') || file.includes(`.files${path.sep}`);
}

export async function watchFiles(
  initial: WatchedPaths,
  /** `onBatch` is told, after each quiet time, whether the config changed (or appeared, or went away); else store files did. */
  options: { debounceMs: number; onBatch: (config: boolean) => void; onError: (error: Error) => void },
): Promise<FileWatcher> {
  const { watch } = await import('chokidar');
  let paths = initial;
  let timer: NodeJS.Timeout | undefined;
  let config = false;
  let closed = false;

  const watcher = watch(list(paths), {
    ignoreInitial: true,
    // Our own journal and the temporary files of atomic writes are never inputs.
    ignored: (file: string) => file.split(path.sep).includes(WORK_DIR_NAME) || file.endsWith('.tmp') || file.endsWith('.promptlock-tmp'),
  });
  watcher.on('all', (_event, file) => {
    if (closed) return;
    const absolute = path.resolve(file);
    if (absolute === paths.configPath) config = true;
    else if (!isStoreFile(paths, absolute)) return;
    clearTimeout(timer);
    // Editors and our own commits write several files at once: wait for quiet, then report once.
    timer = setTimeout(() => {
      const done = config;
      config = false;
      options.onBatch(done);
    }, options.debounceMs);
  });
  watcher.on('error', (error) => options.onError(error as Error));
  let settle: () => void = () => {};
  // Resolves on close too, so nobody waits forever for a watcher stopped before it was ready.
  const ready = new Promise<void>((resolve) => {
    settle = resolve;
    watcher.once('ready', () => resolve());
  });

  return {
    ready,
    update(next) {
      const before = list(paths);
      const after = list(next);
      paths = next;
      const gone = before.filter((p) => !after.includes(p));
      const added = after.filter((p) => !before.includes(p));
      if (gone.length > 0) watcher.unwatch(gone);
      if (added.length > 0) watcher.add(added);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await watcher.close();
      settle();
    },
  };
}
