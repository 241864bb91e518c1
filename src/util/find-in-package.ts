import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { foldersUp } from './folders-up.js';

/**
 * A file the package ships beside its code (`templates/runtime.ts`), found by walking up from
 * the calling module: it runs from `src/<layer>/` in tests and from a bundled chunk in `dist/`
 * once built. Undefined when it is not there.
 */
export function findInPackage(relative: string, from: string): string | undefined {
  for (const dir of foldersUp(dirname(fileURLToPath(from)), { levels: 4 })) {
    const candidate = join(dir, relative);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}
