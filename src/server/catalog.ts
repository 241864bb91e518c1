/**
 * The served prompts, indexed once per (re)load so each request is a map lookup or a binary search:
 * packages sorted by workspace then package (each workspace a contiguous range), versions by
 * number, context files by id.
 */

import { basePackageName } from '../package-name.js';
import { parseTemplate, type Segment } from '../template/index.js';
import type { Prompt, PromptSummary } from '../types.js';
import type { LoadedPackage, ServedFile } from './loaded-package.js';

export interface ServedVersion {
  prompt: Prompt;
  /** `content` parsed once, rendered per request. */
  segments: Segment[];
}

export interface ServedPackage {
  workspace: string;
  package: string;
  /** Published versions by number. */
  published: Map<number, ServedVersion>;
  /** Highest published number; undefined when only a draft exists. */
  latest: number | undefined;
  draft: ServedVersion | undefined;
  summary: PromptSummary;
}

export interface Catalog {
  /** Sorted by (workspace, package). */
  packages: ServedPackage[];
  byName: Map<string, ServedPackage>;
  /** `[start, end)` of each workspace in `packages`. */
  workspaces: Map<string, { start: number; end: number }>;
  files: Map<string, ServedFile>;
}

/** Orders packages by workspace, then package: the list order, stable across reloads. */
export function comparePackages(a: { workspace: string; package: string }, b: { workspace: string; package: string }): number {
  if (a.workspace !== b.workspace) return a.workspace < b.workspace ? -1 : 1;
  if (a.package !== b.package) return a.package < b.package ? -1 : 1;
  return 0;
}

function servePackage(loaded: LoadedPackage): ServedPackage {
  const published = new Map<number, ServedVersion>();
  let draft: ServedVersion | undefined;
  let latest: number | undefined;
  for (const { number, prompt } of loaded.versions) {
    const served = { prompt, segments: parseTemplate(prompt.content) };
    if (number === 0) {
      draft = served;
      continue;
    }
    published.set(number, served);
    if (latest === undefined || number > latest) latest = number;
  }
  const head = (latest === undefined ? draft : published.get(latest))!.prompt;
  return {
    workspace: loaded.workspace,
    package: loaded.package,
    published,
    latest,
    draft,
    summary: {
      id: head.id,
      title: head.title,
      packageName: basePackageName(loaded),
      workspaceSlug: loaded.workspace,
      version: head.version,
    },
  };
}

export function buildCatalog(loaded: readonly LoadedPackage[]): Catalog {
  const packages = loaded.map(servePackage).sort(comparePackages);
  const byName = new Map<string, ServedPackage>();
  const workspaces = new Map<string, { start: number; end: number }>();
  const files = new Map<string, ServedFile>();
  packages.forEach((pkg, index) => {
    byName.set(pkg.summary.packageName, pkg);
    const range = workspaces.get(pkg.workspace);
    if (range) range.end = index + 1;
    else workspaces.set(pkg.workspace, { start: index, end: index + 1 });
  });
  for (const source of loaded) {
    for (const version of source.versions) for (const file of version.files) files.set(file.contextId, file);
  }
  return { packages, byName, workspaces, files };
}
