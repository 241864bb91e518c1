import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConfigError } from '../../errors.js';
import { readConfigFile } from '../read-config-file.js';

/**
 * The config file `add`/`remove` edit: `--config` when given (resolved against `cwd`), else the
 * file the config loader finds, so the edit lands where `sync` will read it.
 */
export async function locateConfigFile(cwd: string, configPath?: string): Promise<string> {
  if (configPath !== undefined) {
    const path = resolve(cwd, configPath);
    try {
      await access(path);
    } catch {
      throw new ConfigError(`Config file not found: ${path}.`, {
        hint: 'Check --config, or run promptlock init to create prompts.config.ts.',
      });
    }
    return path;
  }
  const found = await readConfigFile(cwd);
  if (!found) {
    throw new ConfigError(`No promptlock config found in ${cwd} or above it in this project.`, {
      hint: 'Run promptlock init to create prompts.config.ts, or pass --config <file>.',
    });
  }
  return found.filepath;
}
