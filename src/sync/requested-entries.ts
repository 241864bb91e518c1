/**
 * What the config asks for: exact names and workspace globs, each with an optional selector.
 * The config loader has already rejected malformed entries; this turns them into data.
 */
import { ConfigError } from '../errors.js';
import { PROMPT_ENTRY_ALLOWED, parsePromptEntry } from '../config/prompt-entry.js';
import { parsePackageName, type Selector } from '../package-name.js';

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
    name: `@${parsed.workspace}/${parsed.package}`,
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
export function entryFor(entries: readonly RequestedEntry[], name: string): RequestedEntry | undefined {
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
