import { basename, extname } from 'node:path';
import { ConfigError } from '../../errors.js';
import { writeFileSafely } from '../../util/write-file.js';
import { readConfigText } from '../config-text.js';
import { addPromptToSource, removePromptFromSource, type SourceEdit } from './edit-config-source.js';
import { addPromptToJson, removePromptFromJson } from './edit-json-config.js';
import type { PromptEdit } from './plan-prompt-edit.js';

const MODULE_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs']);

type Mode = 'add' | 'remove';

async function editConfigFile(configPath: string, name: string, mode: Mode): Promise<PromptEdit> {
  const where = basename(configPath);
  let text: string | undefined;
  try {
    text = await readConfigText(configPath);
  } catch (error) {
    if (error instanceof ConfigError) throw error; // a FIFO, a device, a file over the cap: named
    throw new ConfigError(`Cannot read the config file ${configPath}: ${(error as Error).message}`, {
      hint: 'Run promptlock init to create one, or pass --config <file>.',
      cause: error,
    });
  }
  if (text === undefined) {
    throw new ConfigError(`Cannot read the config file ${configPath}: it does not exist.`, {
      hint: 'Run promptlock init to create one, or pass --config <file>.',
    });
  }
  const extension = extname(configPath);
  let result: SourceEdit;
  if (where === 'package.json') {
    result = mode === 'add' ? addPromptToJson(text, name, where, 'promptlock') : removePromptFromJson(text, name, where, 'promptlock');
  } else if (extension === '.json') {
    result = mode === 'add' ? addPromptToJson(text, name, where) : removePromptFromJson(text, name, where);
  } else if (MODULE_EXTENSIONS.has(extension)) {
    result = mode === 'add' ? await addPromptToSource(text, where, name, where) : await removePromptFromSource(text, where, name, where);
  } else {
    throw new ConfigError(`promptlock cannot edit ${where}: it edits .ts, .mts, .js, .mjs and .json configs.`, {
      hint: 'Edit its prompts list by hand.',
    });
  }
  if (result.edit.changed) {
    // Through a temporary file, so an interrupted write never leaves half a config behind; never through a link.
    await writeFileSafely(configPath, result.text, { refusal: ConfigError });
  }
  return { ...result.edit, configPath };
}

/**
 * Adds `name` to the `prompts` list of the config file, keeping its formatting and comments.
 * A name already listed changes nothing; the same package with another selector is replaced.
 */
export function addPromptToConfig(configPath: string, name: string): Promise<PromptEdit> {
  return editConfigFile(configPath, name, 'add');
}

/**
 * Removes `name` from the `prompts` list (the exact entry, else the one entry of that package).
 * Refuses to empty the list, since an empty list means every prompt the service lists.
 */
export function removePromptFromConfig(configPath: string, name: string): Promise<PromptEdit> {
  return editConfigFile(configPath, name, 'remove');
}
