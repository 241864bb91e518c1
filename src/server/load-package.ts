import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { basePackageName } from '../package-name.js';
import type { LoadedPackage } from './loaded-package.js';
import { readAuthoredPackage } from './read-authored-package.js';
import { readSnapshotPackage } from './read-snapshot-package.js';

async function kindOf(file: string): Promise<'file' | 'folder' | undefined> {
  try {
    const stat = await fs.stat(file);
    return stat.isDirectory() ? 'folder' : stat.isFile() ? 'file' : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Loads `@workspace/package` from `root` in whichever forms exist (an authored folder, a snapshot,
 * or both with different versions). Resolves to undefined when neither exists any more.
 */
export async function loadPackage(root: string, workspace: string, pkg: string): Promise<LoadedPackage | undefined> {
  const folder = path.join(root, workspace, pkg);
  const snapshot = `${folder}.json`;
  const [folderKind, snapshotKind] = await Promise.all([kindOf(folder), kindOf(snapshot)]);
  const parts = await Promise.all([
    folderKind === 'folder' ? readAuthoredPackage(folder, workspace, pkg) : undefined,
    snapshotKind === 'file' ? readSnapshotPackage(snapshot, workspace, pkg) : undefined,
  ]);
  const loaded: LoadedPackage = { workspace, package: pkg, versions: [], dirs: [] };
  const seen = new Set<number>();
  for (const part of parts) {
    if (!part) continue;
    for (const version of part.versions) {
      if (seen.has(version.number)) {
        throw new ConfigError(
          `${basePackageName({ workspace, package: pkg })} v${version.number} is defined both in ${folder}/ and in ${snapshot}.`,
          {
            hint: 'Keep one of them.',
          },
        );
      }
      seen.add(version.number);
      loaded.versions.push(version);
    }
    loaded.dirs.push(...part.dirs);
  }
  if (loaded.versions.length === 0) return undefined;
  loaded.versions.sort((a, b) => a.number - b.number);
  return loaded;
}
