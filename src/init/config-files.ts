import { access, readFile } from 'node:fs/promises';
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

/** True when package.json in `dir` has a `"promptlock"` key: a config too (README, "Configuration"). */
async function hasPackageConfig(dir: string): Promise<boolean> {
  try {
    const pkg: unknown = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    return typeof pkg === 'object' && pkg !== null && !Array.isArray(pkg) && 'promptlock' in pkg;
  } catch {
    return false;
  }
}

/** Every config in `dir`: the `prompts.config.*` files in search order, then a package.json `"promptlock"` key. */
export async function existingConfigFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of CONFIG_FILE_NAMES) {
    if (await exists(join(dir, name))) found.push(join(dir, name));
  }
  if (await hasPackageConfig(dir)) found.push(`${join(dir, 'package.json')} ("promptlock" key)`);
  return found;
}
