import path from 'node:path';

/**
 * The folders from `start` up to the file-system root, nearest first: the one walk up the tree
 * that finding a config, a workspace root or a project's files each need. `stopAfter` ends the
 * walk after a folder (a repository boundary), `levels` after so many folders.
 */
export function* foldersUp(start: string, options: { stopAfter?: (dir: string) => boolean; levels?: number } = {}): Generator<string> {
  let dir = path.resolve(start);
  for (let level = 0; level < (options.levels ?? Number.POSITIVE_INFINITY); level++) {
    yield dir;
    const parent = path.dirname(dir);
    if (parent === dir || options.stopAfter?.(dir)) return;
    dir = parent;
  }
}
