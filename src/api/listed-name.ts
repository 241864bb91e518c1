import { isSlug, parsePackageName } from '../package-name.js';

/**
 * The base package name (`@ws/pkg`) of a list item, whose `packageName` the service gives as a
 * full name, a versioned name or a bare slug. A bare slug needs the workspace from the config;
 * undefined when it cannot be known or the name is not a package name at all.
 */
export function listedPackageName(packageName: string, workspace: string | undefined): string | undefined {
  const full = parsePackageName(packageName);
  if (full) return `@${full.workspace}/${full.package}`;
  const slug = packageName.split(':')[0]!;
  if (workspace && isSlug(slug)) return `@${workspace}/${slug}`;
  return undefined;
}
