import type { Lockfile } from '../store/lockfile-format.js';
import { selectorFor, type RequestedEntry } from '../config/prompt-entry.js';
import { parsePackageName } from '../package-name.js';

const show = (selector: string | null) => (selector === null ? 'no selector' : selector);

/**
 * Where the config and the lockfile disagree, one readable line each: requested but not locked,
 * locked at another selector, locked but no longer requested. Empty when they agree.
 */
export function compareConfigWithLock(entries: readonly RequestedEntry[], lockfile: Lockfile): string[] {
  const problems: string[] = [];
  const lockedNames = Object.keys(lockfile.prompts);
  for (const entry of entries) {
    if (entry.kind === 'exact') {
      const locked = lockfile.prompts[entry.name];
      if (!locked) problems.push(`${entry.raw} is in the config but not in the lockfile`);
      else if (locked.selector !== entry.selector) {
        problems.push(`${entry.raw} asks for ${show(entry.selector)}, the lockfile has ${entry.name} at ${show(locked.selector)}`);
      }
    } else if (!lockedNames.some((name) => parsePackageName(name)?.workspace === entry.workspace)) {
      problems.push(`${entry.raw} is in the config but the lockfile has no prompt of workspace "${entry.workspace}"`);
    }
  }
  for (const name of lockedNames) {
    const wanted = selectorFor(entries, name);
    const locked = lockfile.prompts[name]!;
    if (wanted === undefined) problems.push(`${name} is in the lockfile but no longer requested by the config`);
    else if (wanted !== locked.selector && !entries.some((e) => e.kind === 'exact' && e.name === name)) {
      problems.push(`${name} is locked at ${show(locked.selector)}, the config asks for ${show(wanted)}`);
    }
  }
  return problems;
}
