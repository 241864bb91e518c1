import { ServiceError } from '../errors.js';
import { basePackageName, isSelector, isSlug, parsePackageName } from '../package-name.js';
import { terminalText } from '../terminal-text.js';
import type { PromptSummary } from '../types.js';
import { describeValue } from '../util/describe-value.js';

/** What the list says: base names, and the published version of those it names with one. */
export interface Listing {
  /** Base package names (`@ws/pkg`), sorted, unique. */
  names: string[];
  /**
   * Base name → published version (`v7`) for items named with a version (`@ws/pkg:v7`, `pkg:v7`):
   * the version `latest` resolves to, so a lockfile already holding it needs no get (docs/performance.md). Drafts (`v0`) and items named without a version are not in it.
   */
  versions: Map<string, string>;
  /** Base name → the ids of the items naming it: more than one is a list that disagrees with itself. */
  ids: Map<string, Set<string>>;
}

/**
 * Base package names (`@ws/pkg`) of list items, which the service names in full (`@ws/pkg`),
 * versioned (`@ws/pkg:v1`) or by a bare slug (`pkg`, completed with `workspace`). Sorted, unique.
 */
export function listedNames(items: readonly PromptSummary[], workspace: string | undefined): string[] {
  return readListing(items, workspace).names;
}

/** `listedNames`, with the versions the items are named with. */
export function readListing(items: readonly PromptSummary[], workspace: string | undefined): Listing {
  const names = new Set<string>();
  const versions = new Map<string, string>();
  const ids = new Map<string, Set<string>>();
  const clashing = new Set<string>();
  const seen = (name: string, selector: string | undefined, id: string) => {
    const published = selector !== undefined && /^v[1-9]\d*$/.test(selector) ? selector : undefined;
    // Two items of one name at two versions: neither proves anything.
    if (names.has(name) && versions.get(name) !== published) clashing.add(name);
    names.add(name);
    if (published !== undefined) versions.set(name, published);
    ids.set(name, (ids.get(name) ?? new Set()).add(id));
  };
  for (const item of items) {
    const parsed = parsePackageName(item.packageName);
    if (parsed) {
      seen(basePackageName(parsed), parsed.selector, item.id);
      continue;
    }
    const [bare, selector] = item.packageName.split(':') as [string, string | undefined];
    if (isSlug(bare) && (selector === undefined || isSelector(selector))) {
      // The item's own workspace, when the service gives one, is the truth; the config fills the gap.
      const own = item.workspaceSlug;
      if (own !== undefined && own !== null && own !== '' && !(typeof own === 'string' && isSlug(own))) {
        throw new ServiceError(
          `The service lists prompt "${item.packageName}" (id ${item.id}) by a bare slug with an invalid workspaceSlug ${describeValue(own)}.`,
          { hint: 'A workspace slug is made of a-z, 0-9 and "-". This is a fault of the service; report it.', code: 'invalid_response' },
        );
      }
      const ws = (typeof own === 'string' && own) || workspace;
      if (!ws) {
        throw new ServiceError(
          `The service lists prompt "${item.packageName}" (id ${item.id}) by a bare slug, and no workspace is configured.`,
          { hint: 'Set the `workspace` option in the config to the workspace these prompts belong to.', code: 'bare_slug' },
        );
      }
      seen(basePackageName({ workspace: ws, package: bare }), selector, item.id);
      continue;
    }
    throw new ServiceError(`The service lists a prompt with an invalid packageName "${item.packageName}" (id ${item.id}).`, {
      code: 'invalid_response',
    });
  }
  for (const name of clashing) versions.delete(name);
  return { names: [...names].sort(), versions, ids };
}

/**
 * The one warning for list items that name one prompt with different ids (docs/service-interface.md,
 * "Operations"): they are one prompt here, fetched by its name; the service should say which it is.
 */
export function duplicateItemsWarning(ids: ReadonlyMap<string, ReadonlySet<string>>): string | undefined {
  const clashes = [...ids].filter(([, set]) => set.size > 1).sort(([a], [b]) => a.localeCompare(b));
  if (clashes.length === 0) return undefined;
  const shown = clashes
    .slice(0, 5)
    .map(
      ([name, set]) =>
        `${name} (${[...set]
          .slice(0, 3)
          .map((id) => terminalText(id).slice(0, 40))
          .join(', ')}${set.size > 3 ? ', …' : ''})`,
    )
    .join(', ');
  const more = clashes.length > 5 ? ` and ${clashes.length - 5} more` : '';
  return `The service's list names ${clashes.length === 1 ? 'a prompt' : `${clashes.length} prompts`} more than once with different ids: ${shown}${more}. Each is synced once, as its get by name answers.`;
}
