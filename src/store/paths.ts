import path from 'node:path';
import { parsePackageName } from '../package-name.js';

/** `<snapshots>/<workspace>/<package>.json` for a base package name `@workspace/package`. */
export function snapshotPath(snapshotsDir: string, name: string): string {
  const parsed = parsePackageName(name);
  if (!parsed) throw new Error(`not a package name: ${name}`);
  return path.join(snapshotsDir, parsed.workspace, `${parsed.package}.json`);
}

/** Folder for a package's downloaded context files, next to its snapshot. */
export function contextFilesDir(snapshotsDir: string, name: string): string {
  const parsed = parsePackageName(name);
  if (!parsed) throw new Error(`not a package name: ${name}`);
  return path.join(snapshotsDir, parsed.workspace, `${parsed.package}.files`);
}
