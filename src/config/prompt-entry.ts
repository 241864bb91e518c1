import { maskKeysIn } from '../secrets.js';
import { isSelector, parsePackageName, type Selector } from '../package-name.js';

/** One entry of the `prompts` option: an exact package or every package of a workspace. */
export interface PromptEntry {
  workspace: string;
  /** The package slug, or `'*'` for every package the service lists in the workspace. */
  package: string;
  selector: Selector | undefined;
}

export const PROMPT_ENTRY_ALLOWED = '@workspace/package[:vN|latest|draft] or @workspace/*';

const GLOB_PATTERN = /^@([a-z0-9-]+)\/\*(?::(.+))?$/;

/** Parses `@ws/pkg`, `@ws/pkg:sel`, `@ws/*` and `@ws/*:sel`; undefined for anything else. */
export function parsePromptEntry(text: string): PromptEntry | undefined {
  const glob = GLOB_PATTERN.exec(text);
  if (glob) {
    const selector = glob[2];
    if (selector !== undefined && !isSelector(selector)) return undefined;
    return { workspace: glob[1]!, package: '*', selector };
  }
  return parsePackageName(text);
}

/** A problem with the entries, pointing at the entry (by index) that should change. */
export interface PromptEntryProblem {
  index: number;
  message: string;
}

/**
 * Checks every entry, and that no package (or workspace glob) is asked for twice with different
 * selectors: the lockfile holds one version per package, so the second request could never be
 * honoured. Exact repeats are harmless and allowed.
 */
export function promptEntryProblems(entries: readonly unknown[]): PromptEntryProblem[] {
  const problems: PromptEntryProblem[] = [];
  const firstSeen = new Map<string, { index: number; text: string; selector: string }>();
  entries.forEach((entry, index) => {
    const parsed = typeof entry === 'string' ? parsePromptEntry(entry) : undefined;
    if (!parsed) {
      const shown = typeof entry === 'string' ? maskKeysIn(JSON.stringify(entry)) : describeNonString(entry);
      problems.push({
        index,
        message: `${shown} is not a package name or workspace glob (expected ${PROMPT_ENTRY_ALLOWED})`,
      });
      return;
    }
    const text = entry as string;
    const target = `@${parsed.workspace}/${parsed.package}`;
    const selector = parsed.selector ?? '';
    const earlier = firstSeen.get(target);
    if (!earlier) {
      firstSeen.set(target, { index, text, selector });
    } else if (earlier.selector !== selector) {
      problems.push({
        index,
        message:
          `"${text}" asks for ${target} again, already requested as "${earlier.text}" in ` +
          `prompts[${earlier.index}] (keep one entry per package, with one selector)`,
      });
    }
  });
  return problems;
}

function describeNonString(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
