import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { CONFIG_FILE_NAMES as LOADER_FILE_NAMES } from '../config/read-config-file.js';

/** The `prompts.config.*` names the config loader searches for (package.json aside). */
const CONFIG_FILE_NAMES = LOADER_FILE_NAMES.filter((name) => name !== 'package.json');

/** The file `init` writes. */
export const STARTER_CONFIG_NAME = 'prompts.config.ts';

/** The file `init --format json` writes. */
export const STARTER_JSON_CONFIG_NAME = 'prompts.config.json';

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** Every `prompts.config.*` file present in `dir`, in search order. */
export async function existingConfigFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of CONFIG_FILE_NAMES) {
    if (await exists(join(dir, name))) found.push(join(dir, name));
  }
  return found;
}
