import { parsePromptEntry as parseConfigEntry, PROMPT_ENTRY_ALLOWED } from '../config/prompt-entry.js';
import { ConfigError } from '../errors.js';

/**
 * An entry of the `prompts` list split into what it addresses (`@ws/pkg` or `@ws/*`) and its
 * selector. Parsing is the config loader's, so add/remove accept exactly what sync accepts.
 */
export interface PromptEntry {
  /** Entries with the same base address the same prompts. */
  base: string;
  selector: string | undefined;
}

/** Splits an entry, or returns undefined when it is not a valid entry. */
export function parsePromptEntry(text: string): PromptEntry | undefined {
  const entry = parseConfigEntry(text);
  return entry && { base: `@${entry.workspace}/${entry.package}`, selector: entry.selector };
}

/** Like `parsePromptEntry`, for a name the user typed: a bad one is a ConfigError. */
export function validatePromptEntry(text: string): PromptEntry {
  const entry = parsePromptEntry(text);
  if (entry) return entry;
  throw new ConfigError(`Invalid prompt name "${text}": expected ${PROMPT_ENTRY_ALLOWED}.`, {
    hint:
      'Workspace and package are lower-case letters, digits and hyphens, e.g. @acme/onboarding, ' +
      '@acme/onboarding:v3, @acme/experiment:draft or @acme/*.',
  });
}
