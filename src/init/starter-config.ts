import { access, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PromptlockError } from '../errors.js';

/**
 * The starter `prompts.config.ts` ships in the package's `templates/` folder. It is found by
 * walking up from this module, since it runs from `src/init/` in tests and from a bundled chunk
 * in `dist/` once built.
 */
export async function readStarterConfig(): Promise<string> {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 4; level++) {
    const candidate = join(dir, 'templates', 'prompts.config.ts');
    try {
      await access(candidate);
      return await readFile(candidate, 'utf8');
    } catch {
      dir = dirname(dir);
    }
  }
  throw new PromptlockError('The starter config templates/prompts.config.ts is missing from the promptlock package.', {
    hint: 'Reinstall promptlock.',
  });
}

/**
 * The starter `prompts.config.json` of `init --format json`: its `$schema` points at the JSON
 * Schema the package ships (`promptlock/schema.json`), so editors validate and complete it.
 */
export const STARTER_JSON_CONFIG = `${JSON.stringify({ $schema: './node_modules/promptlock/schema.json', prompts: [] }, null, 2)}\n`;
