import { ServiceError } from '../errors.js';
import { basePackageName, isSelector, isSlug, parsePackageName } from '../package-name.js';
import { shown } from '../prompt-grammar.js';
import type { PromptSummary } from '../types.js';

/**
 * Base package names (`@ws/pkg`) of list items, which the service names in full (`@ws/pkg`),
 * versioned (`@ws/pkg:v1`) or by a bare slug (`pkg`, completed with `workspace`). Sorted, unique.
 */
export function listedNames(items: readonly PromptSummary[], workspace: string | undefined): string[] {
  const names = new Set<string>();
  for (const item of items) {
    const parsed = parsePackageName(item.packageName);
    if (parsed) {
      names.add(basePackageName(parsed));
      continue;
    }
    const [bare, selector] = item.packageName.split(':') as [string, string | undefined];
    if (isSlug(bare) && (selector === undefined || isSelector(selector))) {
      // The item's own workspace, when the service gives one, is the truth; the config fills the gap.
      const own = item.workspaceSlug;
      if (own !== undefined && own !== null && own !== '' && !(typeof own === 'string' && isSlug(own))) {
        throw new ServiceError(
          `The service lists prompt "${item.packageName}" (id ${item.id}) by a bare slug with an invalid workspaceSlug ${shown(own)}.`,
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
      names.add(basePackageName({ workspace: ws, package: bare }));
      continue;
    }
    throw new ServiceError(`The service lists a prompt with an invalid packageName "${item.packageName}" (id ${item.id}).`, {
      code: 'invalid_response',
    });
  }
  return [...names].sort();
}
