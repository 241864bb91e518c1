/**
 * Reads one package of a promptlock snapshots folder: `<dir>/<workspace>/<package>.json` (one
 * version, decoded with the store's own format) and its synced context files in
 * `<package>.files/`, so a synced project's committed prompts can be served as they are.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { formatPackageName, type Selector, versionNumber } from '../package-name.js';
import { contextFileNames, decodeSnapshot } from '../store/snapshot-format.js';
import { guessMimeType } from './guess-mime-type.js';
import type { LoadedVersion, ServedFile } from './loaded-package.js';

/** A link in a snapshots folder could serve any file of the machine: refused, as in authored folders. */
export function linkRefused(where: string): ConfigError {
  return new ConfigError(`${where} is a symbolic link; serve does not follow links in a snapshots folder.`, {
    hint: 'Replace the link with the files themselves (as sync writes them), or serve another folder.',
  });
}

/**
 * The synced file for a context item: the name sync gave it (the snapshot format's
 * `contextFileNames`, so a name sync changed is found too), else the bare id of older layouts.
 */
function findSyncedFile(names: ReadonlySet<string>, id: string, stored: string | undefined): string | undefined {
  return [stored, id].find((name) => name !== undefined && names.has(name));
}

export async function readSnapshotPackage(
  file: string,
  workspace: string,
  pkg: string,
): Promise<{ versions: LoadedVersion[]; dirs: string[] }> {
  if ((await fs.lstat(file)).isSymbolicLink()) throw linkRefused(file);
  const prompt = decodeSnapshot(await fs.readFile(file, 'utf8'), file);
  const number = versionNumber(prompt.version);
  if (number === undefined) {
    throw new ConfigError(`Snapshot ${file}: version "${prompt.version}" is not v<N> (v0 is the draft).`);
  }
  const filesDir = path.join(path.dirname(file), `${pkg}.files`);
  let names = new Set<string>();
  try {
    if ((await fs.lstat(filesDir)).isSymbolicLink()) throw linkRefused(filesDir);
    const entries = await fs.readdir(filesDir, { withFileTypes: true });
    const link = entries.find((e) => e.isSymbolicLink());
    if (link) throw linkRefused(path.join(filesDir, link.name));
    names = new Set(entries.filter((e) => e.isFile()).map((e) => e.name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // The real path: a download checks at request time that it is still the path of the file.
  const realFilesDir = names.size > 0 ? await fs.realpath(filesDir) : filesDir;
  const files: ServedFile[] = [];
  const stored = contextFileNames(prompt.context);
  for (const item of prompt.context) {
    if (item.type !== 'file') continue;
    const name = findSyncedFile(names, item.id, stored.get(item.id));
    // A file that was never synced (no `contextFiles: true`) simply has no download.
    if (!name) continue;
    const fileName = item.fileName ?? name;
    files.push({
      contextId: item.id,
      workspace,
      path: path.join(realFilesDir, name),
      fileName,
      mimeType: item.mimeType ?? guessMimeType(fileName),
    });
  }
  const { generatedAt: _volatile, ...metadata } = prompt.metadata;
  const served = {
    ...prompt,
    workspaceSlug: workspace,
    packageName: formatPackageName({ workspace, package: pkg, selector: prompt.version as Selector }),
    metadata,
  };
  return { versions: [{ number, prompt: served, files }], dirs: names.size > 0 ? [filesDir] : [] };
}
