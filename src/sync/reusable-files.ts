import type { StoreView } from '../store/commit-changes.js';
import { integrityOf } from '../store/integrity.js';
import type { LockEntry } from '../store/lockfile-format.js';
import { contextFilePath } from '../store/paths.js';
import type { ReusableFile } from './fetch-prompt.js';
import { basePackageName } from '../package-name.js';

/** Context files of a lock entry that are on disk and intact, so they need no download. */
export async function reusableFiles(view: StoreView, snapshotsDir: string, entry: LockEntry): Promise<Map<string, ReusableFile>> {
  const out = new Map<string, ReusableFile>();
  for (const [id, locked] of Object.entries(entry.files ?? {})) {
    // Read only a plain file name inside a package's own `.files` folder (decodeLockfile checks the package).
    const [ws, folder] = locked.path.split('/');
    const content = await view.readFile(contextFilePath(snapshotsDir, basePackageName({ workspace: ws!, package: folder?.replace(/\.files$/, '') ?? '' }), locked.path));
    if (content && integrityOf(content) === locked.integrity) out.set(id, { locked, content });
  }
  return out;
}
