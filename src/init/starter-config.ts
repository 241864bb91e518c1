import { readFile } from 'node:fs/promises';
import { PromptlockError } from '../errors.js';
import { findInPackage } from '../util/find-in-package.js';

/**
 * The starter `prompts.config.ts` ships in the package's `templates/` folder.
 */
export async function readStarterConfig(): Promise<string> {
  const file = findInPackage('templates/prompts.config.ts', import.meta.url);
  if (file) return readFile(file, 'utf8');
  throw new PromptlockError('The starter config templates/prompts.config.ts is missing from the promptlock package.', {
    hint: 'Reinstall promptlock.',
  });
}

/**
 * The starter `prompts.config.json` of `init --format json`: its `$schema` points at the JSON
 * Schema the package ships (`promptlock/schema.json`), so editors validate and complete it.
 */
export const STARTER_JSON_CONFIG = `${JSON.stringify({ $schema: './node_modules/promptlock/schema.json', prompts: [] }, null, 2)}\n`;
