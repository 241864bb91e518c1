import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

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
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, '.gitignore'), '*\n');
  return dir;
}
