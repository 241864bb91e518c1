import { type RequestedEntry, selectorFor } from '../config/prompt-entry.js';
import { ConfigError, ServiceError } from '../errors.js';
import { basePackageName, parsePackageName, type Selector } from '../package-name.js';
import { nearMatches } from '../util/edit-distance.js';
import type { SyncRunOptions, Target } from './types.js';

function baseName(raw: string): { name: string; selector: Selector | undefined } {
  const parsed = parsePackageName(raw);
  if (!parsed) {
    throw new ConfigError(`"${raw}" is not a package name.`, { hint: 'Expected @workspace/package[:vN|latest|draft].' });
  }
  return { name: basePackageName(parsed), selector: parsed.selector === 'v0' ? 'draft' : parsed.selector };
}

/**
 * The prompts a partial sync (`sync <names…>`) asks for, each at the selector the config requests
 * it at; undefined when no names are given. Needs no list.
 */
export function namedTargets(entries: readonly RequestedEntry[], options: SyncRunOptions): Target[] | undefined {
  if (!options.names || options.names.length === 0) return undefined;
  return options.names.map((raw) => {
    const { name, selector } = baseName(raw);
    const wanted = selectorFor(entries, name);
    if (wanted === undefined) {
      throw new ConfigError(`${name} is not requested by ${options.config.configPath}.`, {
        hint: `Add it first: promptlock add ${raw}`,
      });
    }
    if (selector !== undefined && selector !== wanted) {
      throw new ConfigError(`${raw} does not match the config, which asks for ${name} at ${wanted ?? 'no selector'}.`, {
        hint: `Change the config (promptlock add ${raw}) or sync ${name} without a selector.`,
      });
    }
    return { name, selector: wanted };
  });
}

/** The prompts a full sync asks for, discovered as the list's pages arrive (`targetsOf`). */
export interface ListedTargets {
  /** Exact entries: known before any list, each at its own selector. */
  exact: Target[];
  /** Globs, or no entries at all ("every prompt"): targets come from the list. */
  needsList: boolean;
  /**
   * The targets one page of listed base names adds: each name once over all pages, at the selector
   * of the first glob of its workspace (in config order), or `latest` when the config has no
   * entries. A name with an exact entry is not added again: the exact entry wins.
   */
  add(names: Iterable<string>): Target[];
  /** After the last page: a glob that matched no listed prompt is an error. */
  finish(): void;
}

/**
 * The prompts to sync, as a stream over the list: the exact entries at once, the globs' matches
 * page by page (docs/performance.md: gets start with the first page).
 */
export function targetsOf(entries: readonly RequestedEntry[]): ListedTargets {
  const exact = new Map<string, Selector | null>();
  for (const entry of entries) if (entry.kind === 'exact') exact.set(entry.name, entry.selector);
  const globs = entries.flatMap((e) => (e.kind === 'glob' ? [e] : []));
  const everything = entries.length === 0;
  const matched = new Set<string>(); // workspaces a glob matched in
  const listedWorkspaces = new Set<string>();
  const seen = new Set<string>();
  return {
    exact: [...exact].map(([name, selector]) => ({ name, selector })).sort((a, b) => a.name.localeCompare(b.name)),
    needsList: everything || globs.length > 0,
    add(names) {
      const added: Target[] = [];
      for (const name of names) {
        if (seen.has(name)) continue;
        seen.add(name);
        if (everything) {
          added.push({ name, selector: 'latest' });
          continue;
        }
        const workspace = parsePackageName(name)?.workspace;
        if (workspace) listedWorkspaces.add(workspace);
        const glob = globs.find((g) => g.workspace === workspace);
        if (!glob) continue;
        matched.add(glob.workspace);
        if (!exact.has(name)) added.push({ name, selector: glob.selector });
      }
      return added;
    },
    finish() {
      const empty = globs.find((g) => !matched.has(g.workspace));
      if (empty) {
        const near = nearMatches(empty.workspace, listedWorkspaces).map((ws) => `@${ws}/*`);
        throw new ServiceError(`${empty.raw} matched no prompt: the service lists none in workspace "${empty.workspace}".`, {
          code: 'empty_glob',
          hint: `${near.length > 0 ? `Did you mean ${near.join(', ')}? ` : ''}Check the workspace name, and that your API key can read workspace "${empty.workspace}".`,
        });
      }
    },
  };
}
