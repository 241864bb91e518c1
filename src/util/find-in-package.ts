import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A file the package ships beside its code (`templates/runtime.ts`), found by walking up from
 * the calling module: it runs from `src/<layer>/` in tests and from a bundled chunk in `dist/`
 * once built. Undefined when it is not there.
 */
export function findInPackage(relative: string, from: string): string | undefined {
  let dir = dirname(fileURLToPath(from));
  for (let level = 0; level < 4; level++) {
    const candidate = join(dir, relative);
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return undefined;
}
