/**
 * Which folder is a promptlock project: one holding a config of its own. Shared by the config
 * search (src/config/read-config-file.ts), the apps of a workspace (src/workspace/find-apps.ts) and
 * the store's path guard, which keeps a project's writes out of another project's folder
 * (src/store/paths.ts; docs/security.md, "Files on disk").
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** Where cosmiconfig looks in each folder, first match wins (README.md, "Configuration"). */
export const CONFIG_FILE_NAMES = [
  'package.json',
  'prompts.config.ts',
  'prompts.config.mts',
  'prompts.config.js',
  'prompts.config.mjs',
  'prompts.config.json',
] as const;

/**
 * The folder's own config file: a `prompts.config.*`, or package.json with a "promptlock" key;
 * undefined when it has none. A package.json that is not JSON throws its parse error.
 */
export async function ownConfigFile(dir: string): Promise<string | undefined> {
  for (const name of CONFIG_FILE_NAMES) {
    const file = path.join(dir, name);
    if (!existsSync(file)) continue;
    if (name !== 'package.json') return file;
    const manifest: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (manifest !== null && typeof manifest === 'object' && !Array.isArray(manifest) && 'promptlock' in manifest) return file;
  }
  return undefined;
}
