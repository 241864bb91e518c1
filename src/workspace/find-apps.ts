/**
 * The apps of a monorepo (README, "Monorepos"): the workspace root is the nearest folder, from the
 * working directory up, whose package.json has `workspaces` (npm, yarn: an array or
 * `{ packages: [...] }`) or that holds a pnpm-workspace.yaml (`packages:`). Its package patterns
 * (`apps/*`, `packages/**`, `!excluded`) are expanded by walking the folders, and every package
 * with a promptlock config of its own (a `prompts.config.*` file or a `"promptlock"` key in its
 * package.json) is an app. The root itself is one too when it has a config.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_FILE_NAMES } from '../config/read-config-file.js';
import { ConfigError } from '../errors.js';

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

/** Folders never searched for packages. */
const SKIPPED = new Set(['node_modules', '.git']);

/** Finds the workspace from `cwd` upward and its apps, sorted by folder. */
export async function findWorkspace(cwd: string): Promise<Workspace> {
  const found = await findWorkspaceRoot(path.resolve(cwd));
  if (!found) {
    throw new ConfigError(`--recursive: no workspace found from ${path.resolve(cwd)}.`, {
      hint: 'Run it in a monorepo: a package.json with "workspaces" (npm, yarn), or a pnpm-workspace.yaml with "packages:". For one project, leave out --recursive.',
    });
  }
  const dirs = [found.root, ...(await expandPatterns(found.root, found.patterns))];
  const apps: WorkspaceApp[] = [];
  for (const dir of [...new Set(dirs)]) {
    const configPath = await ownConfigFile(dir);
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

async function findWorkspaceRoot(start: string): Promise<Omit<Workspace, 'apps'> | undefined> {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const pnpm = path.join(dir, 'pnpm-workspace.yaml');
    if (existsSync(pnpm)) {
      return { root: dir, source: 'pnpm-workspace.yaml', patterns: readPnpmPackages(await readFile(pnpm, 'utf8'), pnpm) };
    }
    const manifest = await readManifest(dir);
    const patterns = manifest ? manifestPatterns(manifest.workspaces) : undefined;
    if (patterns) return { root: dir, source: 'package.json', patterns };
    if (path.dirname(dir) === dir) return undefined;
  }
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

/**
 * The `packages:` list of a pnpm-workspace.yaml, read by hand: only that key, as a block list
 * (`  - 'apps/*'`) or a flow list (`packages: [apps/*, "libs/**"]`), with comments and quotes.
 * Other keys (`catalog:`, `onlyBuiltDependencies:`…) are skipped.
 */
export function readPnpmPackages(text: string, file = 'pnpm-workspace.yaml'): string[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const patterns: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const match = /^packages\s*:\s*(.*)$/.exec(stripComment(lines[i]!));
    if (!match) continue;
    const rest = match[1]!.trim();
    if (rest.startsWith('[')) {
      if (!rest.endsWith(']'))
        throw new ConfigError(`Cannot read the "packages" list of ${file}: a flow list must end on its line ("]").`, {
          hint: 'Write it as a block list, one "- pattern" per line.',
        });
      return rest
        .slice(1, -1)
        .split(',')
        .map((item) => unquote(item.trim()))
        .filter((item) => item !== '');
    }
    if (rest !== '')
      throw new ConfigError(`Cannot read the "packages" list of ${file}: expected a list, got ${JSON.stringify(rest)}.`, {
        hint: 'Write it as a block list, one "- pattern" per line.',
      });
    for (let j = i + 1; j < lines.length; j++) {
      const line = stripComment(lines[j]!);
      if (line.trim() === '') continue;
      const item = /^\s*-\s*(.*)$/.exec(line);
      if (!item) {
        if (/^\S/.test(line)) break; // the next top-level key
        throw new ConfigError(
          `Cannot read the "packages" list of ${file}, line ${j + 1}: expected "- pattern", got ${JSON.stringify(line.trim())}.`,
          { hint: 'Write one "- pattern" per line.' },
        );
      }
      const value = unquote(item[1]!.trim());
      if (value !== '') patterns.push(value);
    }
    return patterns;
  }
  return patterns;
}

/** A `#` comment outside quotes, and trailing spaces, removed. */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

function unquote(value: string): string {
  return /^(['"]).*\1$/.test(value) ? value.slice(1, -1) : value;
}

/**
 * The folders matching the patterns (`*` is any name, `**` any depth, a leading `!` excludes),
 * relative to `root`. Hidden folders and node_modules are never entered.
 */
export async function expandPatterns(root: string, patterns: readonly string[]): Promise<string[]> {
  const included = new Set<string>();
  const excluded = new Set<string>();
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const segments = (negated ? raw.slice(1) : raw).split('/').filter((s) => s !== '' && s !== '.');
    for (const dir of await matchSegments(root, segments)) (negated ? excluded : included).add(dir);
  }
  return [...included].filter((dir) => !excluded.has(dir)).sort();
}

async function matchSegments(dir: string, segments: readonly string[]): Promise<string[]> {
  if (segments.length === 0) return [dir];
  const [head, ...rest] = segments as [string, ...string[]];
  if (head === '**') {
    // Zero folders, or one more folder and `**` again.
    const here = await matchSegments(dir, rest);
    const deeper = await Promise.all((await subfolders(dir)).map((sub) => matchSegments(path.join(dir, sub), segments)));
    return [...here, ...deeper.flat()];
  }
  if (!/[*?]/.test(head)) {
    const next = path.join(dir, head);
    return existsSync(next) ? matchSegments(next, rest) : [];
  }
  const pattern = segmentPattern(head);
  const matches = (await subfolders(dir)).filter((name) => pattern.test(name));
  return (await Promise.all(matches.map((name) => matchSegments(path.join(dir, name), rest)))).flat();
}

async function subfolders(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory() && !e.name.startsWith('.') && !SKIPPED.has(e.name)).map((e) => e.name);
  } catch {
    return [];
  }
}

function segmentPattern(segment: string): RegExp {
  const body = segment
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]');
  return new RegExp(`^${body}$`);
}

/** The folder's own config file: a `prompts.config.*`, or package.json with a "promptlock" key. */
async function ownConfigFile(dir: string): Promise<string | undefined> {
  for (const name of CONFIG_FILE_NAMES) {
    const file = path.join(dir, name);
    if (!existsSync(file)) continue;
    if (name !== 'package.json') return file;
    const manifest = await readManifest(dir);
    if (manifest && 'promptlock' in manifest) return file;
  }
  return undefined;
}
