import { lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PromptlockError } from '../errors.js';
import { writeFileSafely } from '../util/write-file.js';

/**
 * promptlock's private folder next to the config: the run lock and the write journal. It ignores
 * itself in git, so users never have to add it to .gitignore.
 */
export const WORK_DIR_NAME = '.promptlock';

export function workDirOf(rootDir: string): string {
  return path.join(rootDir, WORK_DIR_NAME);
}

export async function ensureWorkDir(rootDir: string): Promise<string> {
  const dir = workDirOf(rootDir);
  // The journal and run lock are written here: never through a link to elsewhere.
  const stats = await lstat(dir).catch(() => undefined);
  if (stats?.isSymbolicLink()) {
    throw new PromptlockError(
      `Refusing to use ${dir}: it is a symbolic link; promptlock keeps its journal and run lock in a real folder.`,
      {
        hint: `Remove the link ${dir} (promptlock recreates the folder).`,
      },
    );
  }
  await mkdir(dir, { recursive: true });
  // Never through a link: a checkout may hold one here, to any file of the user's (docs/security.md).
  await writeFileSafely(path.join(dir, '.gitignore'), '*\n', { refusal: PromptlockError, within: dir });
  return dir;
}
