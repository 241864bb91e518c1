/**
 * The entries of the `prompts` option, the one model of them: `PromptEntry` is an entry as
 * written (an exact package or a workspace glob, with an optional selector), `RequestedEntry` is
 * what it asks sync for (the selector normalised: `v0` is `draft`, a glob floats at `latest`).
 */
import { ConfigError } from '../errors.js';
import { basePackageName, isSelector, parsePackageName, type Selector } from '../package-name.js';
import { maskKeysIn } from '../secrets.js';
import { describeValue } from '../util/describe-value.js';

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

/** Like `parsePromptEntry`, for a name the user typed (`add`, `remove`): a bad one is a ConfigError. */
export function validatePromptEntry(text: string): PromptEntry {
  const entry = parsePromptEntry(text);
  if (entry) return entry;
  throw new ConfigError(`Invalid prompt name "${text}": expected ${PROMPT_ENTRY_ALLOWED}.`, {
    hint:
      'Workspace and package are lower-case letters, digits and hyphens, e.g. @acme/onboarding, ' +
      '@acme/onboarding:v3, @acme/experiment:draft or @acme/*.',
  });
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
      const shown = describeValue(entry, maskKeysIn);
      problems.push({
        index,
        message: `${shown} is not a package name or workspace glob (expected ${PROMPT_ENTRY_ALLOWED})`,
      });
      return;
    }
    const text = entry as string;
    const target = basePackageName(parsed);
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

/** What one entry of the config asks sync for. */
export type RequestedEntry =
  | { kind: 'exact'; raw: string; name: string; workspace: string; selector: Selector | null }
  | { kind: 'glob'; raw: string; workspace: string; selector: Selector };

export function parseRequestedEntry(raw: string): RequestedEntry {
  const parsed = parsePromptEntry(raw);
  if (!parsed) {
    throw new ConfigError(`"${raw}" is not a package name or workspace glob.`, { hint: `Expected ${PROMPT_ENTRY_ALLOWED}.` });
  }
  if (parsed.package === '*') {
    return { kind: 'glob', raw, workspace: parsed.workspace, selector: parsed.selector === 'v0' ? 'draft' : (parsed.selector ?? 'latest') };
  }
  return {
    kind: 'exact',
    raw,
    name: basePackageName(parsed),
    workspace: parsed.workspace,
    // `v0` is the draft's version: the same request as `draft`, and just as floating.
    selector: parsed.selector === 'v0' ? 'draft' : (parsed.selector ?? null),
  };
}

/** Entries of the config; an empty list stands for "every listed prompt, at latest". */
export function requestedEntries(prompts: readonly string[]): RequestedEntry[] {
  return prompts.map(parseRequestedEntry);
}

/** The entry that governs `name`: an exact entry wins over a glob; undefined when none does. */
function entryFor(entries: readonly RequestedEntry[], name: string): RequestedEntry | undefined {
  const exact = entries.find((e) => e.kind === 'exact' && e.name === name);
  if (exact) return exact;
  const workspace = parsePackageName(name)?.workspace;
  return entries.find((e) => e.kind === 'glob' && e.workspace === workspace);
}

/** The selector a name is requested at (`null`: none given, the service chooses). */
export function selectorFor(entries: readonly RequestedEntry[], name: string): Selector | null | undefined {
  if (entries.length === 0) return 'latest';
  const entry = entryFor(entries, name);
  return entry === undefined ? undefined : entry.selector;
}

export function isFloating(selector: string | null): boolean {
  return selector === null || selector === 'latest' || selector === 'draft';
}
