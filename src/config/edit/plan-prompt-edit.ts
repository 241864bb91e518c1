import { ConfigError } from '../../errors.js';
import { basePackageName } from '../../package-name.js';
import { parsePromptEntry, validatePromptEntry } from '../prompt-entry.js';

/** What `add`/`remove` did to a config file; the CLI turns it into a message. */
export interface PromptEdit {
  changed: boolean;
  action: 'added' | 'replaced' | 'unchanged' | 'removed';
  /** The entry added, kept or removed, exactly as it now stands (or stood) in the list. */
  entry: string;
  /** For `replaced`: the entry with another selector that `entry` took the place of. */
  previous?: string;
  configPath: string;
}

export type AddPlan =
  | { kind: 'unchanged' }
  | { kind: 'append' }
  | { kind: 'insert'; index: number }
  | { kind: 'replace'; index: number; previous: string };

/**
 * Entries are the string literals of the list (undefined for anything else, e.g. a spread),
 * index-aligned with the list's elements so the editor can act on the plan.
 */
type Entries = readonly (string | undefined)[];

const quoted = (items: readonly string[]) => items.map((item) => `"${item}"`).join(', ');

/** Indexes of the entries that address the same prompts as `base` (`@ws/pkg` or `@ws/*`). */
function sameBase(entries: Entries, base: string): number[] {
  const found: number[] = [];
  entries.forEach((entry, index) => {
    if (entry === undefined) return;
    const parsed = parsePromptEntry(entry);
    if (parsed && basePackageName(parsed) === base) found.push(index);
  });
  return found;
}

/**
 * Adding a present entry changes nothing; adding one whose package is listed with another
 * selector replaces that entry, since one package cannot be locked at two selectors.
 */
export function planAdd(entries: Entries, name: string, where: string): AddPlan {
  const base = basePackageName(validatePromptEntry(name));
  if (entries.includes(name)) return { kind: 'unchanged' };
  const matches = sameBase(entries, base);
  if (matches.length === 0) return sortedPlace(entries, name);
  if (matches.length > 1) {
    throw new ConfigError(
      `Cannot add "${name}": ${where} already lists ${base} several times (${quoted(matches.map((i) => entries[i]!))}).`,
      { hint: `Remove the extra entries (promptlock remove <exact name>), then add "${name}" again.` },
    );
  }
  const index = matches[0]!;
  return { kind: 'replace', index, previous: entries[index]! };
}

/**
 * A list of two or more entries in sorted order gets the new entry in its place, so two branches
 * that each add a prompt rarely touch the same line; any other list gets it at the end.
 */
function sortedPlace(entries: Entries, name: string): AddPlan {
  const sorted = entries.length >= 2 && entries.every((entry, i) => entry !== undefined && (i === 0 || entries[i - 1]! <= entry));
  const index = sorted ? entries.findIndex((entry) => entry! > name) : -1;
  return index === -1 ? { kind: 'append' } : { kind: 'insert', index };
}

/**
 * Removes the entry equal to `name`, else the one entry with the same package when `name` has
 * no selector. Refuses to remove the last entry: an empty list means "every prompt the service
 * lists", so removing one prompt must not silently widen the config to all of them.
 */
export function planRemove(entries: Entries, name: string, where: string): { index: number; entry: string } {
  const entry = validatePromptEntry(name);
  const base = basePackageName(entry);
  const { selector } = entry;
  let index = entries.indexOf(name);
  if (index === -1) {
    const matches = sameBase(entries, base);
    if (selector !== undefined || matches.length === 0) {
      const listed = entries.filter((entry): entry is string => entry !== undefined);
      const similar = matches.map((i) => entries[i]!);
      throw new ConfigError(`"${name}" is not in the prompts list of ${where}.`, {
        hint:
          similar.length > 0
            ? `It lists ${quoted(similar)}; pass that exact name to remove it.`
            : listed.length > 0
              ? `The list holds ${quoted(listed)}.`
              : 'The list is empty.',
      });
    }
    if (matches.length > 1) {
      throw new ConfigError(`"${name}" matches several entries of ${where}: ${quoted(matches.map((i) => entries[i]!))}.`, {
        hint: 'Pass the exact entry to remove, selector included.',
      });
    }
    index = matches[0]!;
  }
  if (entries.length === 1) {
    throw new ConfigError(
      `Not removing "${entries[index]}": it is the last entry of the prompts list in ${where}, and an empty list means every prompt the service lists.`,
      {
        hint: 'To lock every prompt, delete the prompts option by hand; otherwise add the prompt you want first (promptlock add <name>), then remove this one.',
      },
    );
  }
  return { index, entry: entries[index]! };
}
