import path from 'node:path';
import type { StoreView } from '../store/commit-changes.js';
import { integrityOf } from '../store/integrity.js';
import type { LockEntry } from '../store/lockfile-format.js';
import type { ReusableFile } from './fetch-prompt.js';

/** Context files of a lock entry that are on disk and intact, so they need no download. */
export async function reusableFiles(view: StoreView, snapshotsDir: string, entry: LockEntry): Promise<Map<string, ReusableFile>> {
  const out = new Map<string, ReusableFile>();
  for (const [id, locked] of Object.entries(entry.files ?? {})) {
    const content = await view.readFile(path.join(snapshotsDir, ...locked.path.split('/')));
    if (content && integrityOf(content) === locked.integrity) out.set(id, { locked, content });
  }
  return out;
}
