/**
 * Finds the workspaces and packages of a served folder. Both layouts are recognised side by side:
 * a hand-authored package is a folder `<workspace>/<package>/`, a synced one a snapshot
 * `<workspace>/<package>.json` (its context files in `<package>.files/`).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { isSlug } from '../package-name.js';
import { linkRefused } from './read-snapshot-package.js';

const notSlug = (where: string, name: string, what: string) =>
  new ConfigError(`${path.join(where, name)}: "${name}" is not a valid ${what} name (lower-case letters, digits and hyphens).`, {
    hint: 'Is --dir the folder of workspaces? Rename the entry, or start its name with "." to have it ignored.',
  });

/** Workspace folders at the top of `root`; files there (a README, a lockfile) are ignored. */
export async function listWorkspaces(root: string): Promise<string[]> {
  let entries;
  try {
    entries = await fs.readdir(root, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ConfigError(`The folder to serve, ${root}, does not exist.`, { hint: 'Pass an existing folder with --dir.' });
    }
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') {
      throw new ConfigError(`${root} is a file; --dir takes the folder of workspaces.`);
    }
    throw error;
  }
  const workspaces: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    // A linked workspace folder would serve whatever it points at (docs/local-service.md).
    if (entry.isSymbolicLink() && (await isFolder(path.join(root, entry.name)))) throw linkRefused(path.join(root, entry.name));
    if (!entry.isDirectory()) continue;
    if (!isSlug(entry.name)) throw notSlug(root, entry.name, 'workspace');
    workspaces.push(entry.name);
  }
  return workspaces.sort();
}

/**
 * Package names of one workspace: folders (hand-authored) and `*.json` snapshots, merged.
 * `<package>.files/` folders belong to their snapshot; other files are ignored.
 */
export async function listPackages(root: string, workspace: string): Promise<string[]> {
  const where = path.join(root, workspace);
  let entries;
  try {
    entries = await fs.readdir(where, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const names = new Set<string>();
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isSymbolicLink() && (entry.name.endsWith('.json') || (await isFolder(path.join(where, entry.name))))) {
      throw linkRefused(path.join(where, entry.name));
    }
    let name: string;
    if (entry.isDirectory()) {
      if (entry.name.endsWith('.files')) continue;
      name = entry.name;
    } else if (entry.isFile() && entry.name.endsWith('.json')) {
      name = entry.name.slice(0, -'.json'.length);
    } else {
      continue;
    }
    if (!isSlug(name)) throw notSlug(where, entry.name, 'package');
    names.add(name);
  }
  return [...names].sort();
}

async function isFolder(file: string): Promise<boolean> {
  return fs.stat(file).then(
    (stat) => stat.isDirectory(),
    () => false,
  );
}
