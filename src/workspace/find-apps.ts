/**
 * The apps of a monorepo (docs/cli.md, "Monorepos"): the workspace root is the nearest folder, from the
 * working directory up to the repository's own folder (the one holding `.git`), whose package.json
 * has `workspaces` (npm, yarn: an array or `{ packages: [...] }`) or that holds a
 * pnpm-workspace.yaml (`packages:`, read with js-yaml). Its package patterns (`apps/*`,
 * `packages/**`, `!excluded`) are expanded with tinyglobby, and every package with a promptlock
 * config of its own (a `prompts.config.*` file or a `"promptlock"` key in its package.json) is an
 * app. The root itself is one too when it has a config. Every app lies inside the root, links
 * resolved: a `..` pattern or a package linked from elsewhere is refused, since running an app
 * runs its config's code and writes its files.
 */
import { existsSync } from 'node:fs';
import { lstat, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { foldersUp } from '../util/folders-up.js';
import { ownConfigFile } from '../util/project-config.js';

export interface WorkspaceApp {
  /** Its package.json `name`, else its folder relative to the workspace root. */
  name: string;
  /** The app's folder (absolute). */
  dir: string;
  /** The folder relative to the workspace root, with `/` separators (`.` for the root). */
  relativeDir: string;
  /** Its config file (absolute): what `--config` would name. */
  configPath: string;
}

export interface Workspace {
  root: string;
  /** Where the package patterns came from, for messages: `package.json` or `pnpm-workspace.yaml`. */
  source: string;
  patterns: string[];
  apps: WorkspaceApp[];
}

/** Finds the workspace from `cwd` upward and its apps, sorted by folder. */
export async function findWorkspace(cwd: string): Promise<Workspace> {
  const found = await findWorkspaceRoot(path.resolve(cwd));
  if (!found) {
    throw new ConfigError(`--recursive: no workspace found from ${path.resolve(cwd)} up to its repository's folder.`, {
      hint: 'Run it in a monorepo: a package.json with "workspaces" (npm, yarn), or a pnpm-workspace.yaml with "packages:". For one project, leave out --recursive.',
    });
  }
  const dirs = [found.root, ...(await expandPatterns(found.root, found.patterns, found.source))];
  const apps: WorkspaceApp[] = [];
  for (const dir of [...new Set(dirs)]) {
    const configPath = await appConfigFile(dir);
    if (!configPath) continue;
    const relativeDir = path.relative(found.root, dir).split(path.sep).join('/') || '.';
    const manifest = await readManifest(dir);
    const name = typeof manifest?.name === 'string' && manifest.name !== '' ? manifest.name : relativeDir;
    apps.push({ name, dir, relativeDir, configPath });
  }
  apps.sort((a, b) =>
    a.relativeDir === '.' ? -1 : b.relativeDir === '.' ? 1 : a.relativeDir < b.relativeDir ? -1 : a.relativeDir > b.relativeDir ? 1 : 0,
  );
  if (apps.length === 0) {
    throw new ConfigError(
      `--recursive: no package of the workspace at ${found.root} has a promptlock config (packages from ${found.source}: ${found.patterns.join(', ')}).`,
      {
        hint: 'Run `promptlock init` in each app that uses prompts.',
      },
    );
  }
  return { ...found, apps };
}

/** A folder holding `.git` (a folder, or a file in a worktree or submodule) is a repository's own. */
const isRepositoryRoot = (dir: string) => existsSync(path.join(dir, '.git'));

async function findWorkspaceRoot(start: string): Promise<Omit<Workspace, 'apps'> | undefined> {
  for (const dir of foldersUp(start, { stopAfter: isRepositoryRoot })) {
    const pnpm = path.join(dir, 'pnpm-workspace.yaml');
    if (existsSync(pnpm)) {
      return { root: dir, source: 'pnpm-workspace.yaml', patterns: await readPnpmPackages(await readFile(pnpm, 'utf8'), pnpm) };
    }
    const manifest = await readManifest(dir);
    const patterns = manifest ? manifestPatterns(manifest.workspaces) : undefined;
    if (patterns) return { root: dir, source: 'package.json', patterns };
  }
  return undefined;
}

async function readManifest(dir: string): Promise<Record<string, unknown> | undefined> {
  const file = path.join(dir, 'package.json');
  if (!existsSync(file)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`Cannot read ${file}: ${(error as Error).message}.`, { hint: 'Fix the JSON of that package.json.' });
  }
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
}

/** npm and yarn: `"workspaces": ["apps/*"]` or `"workspaces": { "packages": ["apps/*"] }`. */
function manifestPatterns(workspaces: unknown): string[] | undefined {
  const list = Array.isArray(workspaces)
    ? workspaces
    : workspaces && typeof workspaces === 'object'
      ? (workspaces as { packages?: unknown }).packages
      : undefined;
  return Array.isArray(list) ? list.filter((p): p is string => typeof p === 'string') : undefined;
}

/** The `packages:` list of a pnpm-workspace.yaml (empty when it has none). */
export async function readPnpmPackages(text: string, file = 'pnpm-workspace.yaml'): Promise<string[]> {
  const { load, YAMLException } = await import('js-yaml');
  let document: unknown;
  try {
    document = load(text, { filename: file });
  } catch (error) {
    if (!(error instanceof YAMLException)) throw error;
    throw new ConfigError(`Cannot read ${file}, line ${(error.mark?.line ?? 0) + 1}: ${error.reason}.`, {
      hint: 'Fix the YAML of that file.',
    });
  }
  const packages = document && typeof document === 'object' ? (document as { packages?: unknown }).packages : undefined;
  if (packages === undefined || packages === null) return [];
  if (!Array.isArray(packages) || packages.some((item) => typeof item !== 'string')) {
    throw new ConfigError(`Cannot read the "packages" list of ${file}: expected a list of patterns, got ${JSON.stringify(packages)}.`, {
      hint: 'Write it as a list, one "- pattern" per line.',
    });
  }
  return packages.filter((item) => item !== '');
}

/**
 * The folders matching the patterns (`*` is any name, `**` any depth, a leading `!` excludes),
 * absolute, sorted. Hidden folders and node_modules are never entered, links never followed. A
 * pattern that leaves the root, or a package named by a link out of it, is a ConfigError.
 */
export async function expandPatterns(root: string, patterns: readonly string[], source = 'the workspace'): Promise<string[]> {
  const { glob, isDynamicPattern } = await import('tinyglobby');
  const realRoot = await realpath(root);
  for (const pattern of patterns) {
    const bare = pattern.replace(/^!/, '');
    if (path.isAbsolute(bare) || bare.split(/[\\/]/).includes('..')) {
      throw new ConfigError(
        `Package pattern "${pattern}" of ${source} leaves the workspace root ${root}: promptlock runs only apps inside it.`,
        {
          hint: 'Move the package into the workspace, or run promptlock in its own folder without --recursive.',
        },
      );
    }
  }
  const matched = await glob([...patterns], {
    cwd: root,
    onlyDirectories: true,
    followSymbolicLinks: false,
    expandDirectories: false,
    ignore: ['**/node_modules/**'],
  });
  const dirs = new Set(matched.map((dir) => path.join(root, dir.replace(/\/$/, ''))));
  // tinyglobby never returns a link; a package named by one is checked here rather than skipped.
  const excluded = patterns.filter((p) => p.startsWith('!')).map((p) => p.slice(1));
  for (const pattern of patterns) {
    if (pattern.startsWith('!') || isDynamicPattern(pattern) || excluded.includes(pattern)) continue;
    const dir = path.join(root, pattern);
    const stats = await lstat(dir).catch(() => undefined);
    if (stats?.isSymbolicLink()) dirs.add(dir);
  }
  for (const dir of dirs) {
    const real = await realpath(dir);
    const relative = path.relative(realRoot, real);
    if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
      throw new ConfigError(
        `Package ${path.relative(root, dir)} of ${source} is a link to ${real}, outside the workspace root ${root}: promptlock runs only apps inside it.`,
        { hint: 'Replace the link with the package itself, or run promptlock in that folder without --recursive.' },
      );
    }
  }
  return [...dirs].sort();
}

/** The folder's own config file (src/util/project-config.ts); a package.json that is not JSON is a ConfigError. */
async function appConfigFile(dir: string): Promise<string | undefined> {
  try {
    return await ownConfigFile(dir);
  } catch (error) {
    throw new ConfigError(`Cannot read ${path.join(dir, 'package.json')}: ${(error as Error).message}.`, {
      hint: 'Fix the JSON of that package.json.',
    });
  }
}
