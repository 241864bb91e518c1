import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Loader } from 'cosmiconfig';
import { ConfigError } from '../errors.js';
import { findKeyIn } from '../secrets.js';
import { writeFileAtomic } from '../util/write-file-atomic.js';
import { VERSION } from '../version.js';
import { rejectConflictMarkers } from './config-conflict.js';
import { defineConfig } from './define-config.js';
import { jsonProblem } from './json-location.js';
import { rejectApiKey } from './reject-api-key.js';

/** Where cosmiconfig looks in each folder, first match wins (README.md, "Configuration"). */
export const CONFIG_FILE_NAMES = [
  'package.json',
  'prompts.config.ts',
  'prompts.config.mts',
  'prompts.config.js',
  'prompts.config.mjs',
  'prompts.config.json',
] as const;

export interface ConfigFile {
  filepath: string;
  /** What the file exported (its default export), before validation. */
  config: unknown;
}

/** What cosmiconfig answers, and what the direct path below answers in its place. */
type SearchResult = { config: unknown; filepath: string; isEmpty?: boolean } | null;

/**
 * Finds the config from `cwd` upward (stopping at the nearest package.json folder), or loads
 * `configPath` (relative to `cwd`). Returns undefined when no config exists.
 */
export async function readConfigFile(cwd: string, configPath?: string): Promise<ConfigFile | undefined> {
  if (configPath !== undefined) {
    const filepath = path.resolve(cwd, configPath);
    if (!existsSync(filepath) || !statSync(filepath).isFile()) {
      throw new ConfigError(`Config file not found: ${filepath}.`, {
        hint: `Check --config, or run \`promptlock init\` to create ${CONFIG_FILE_NAMES[1]}.`,
      });
    }
    const extension = path.extname(filepath);
    if (!['.ts', '.mts', '.js', '.mjs', '.json'].includes(extension)) {
      throw new ConfigError(`Cannot load config file ${filepath}: unsupported extension "${extension}".`, {
        hint: 'Use a .ts, .mts, .js, .mjs or .json file, or a "promptlock" key in package.json.',
      });
    }
    return settle(
      async () => {
        const direct = path.basename(filepath) === 'package.json' ? UNSURE : await readDirect(filepath, true);
        return direct !== UNSURE ? direct : (await explorer()).load(filepath);
      },
      filepath,
      true,
    );
  }
  return settle(
    async () => {
      const direct = await searchDirect(path.resolve(cwd));
      return direct !== UNSURE ? direct : (await explorer()).search(cwd);
    },
    undefined,
    false,
  );
}

/** cosmiconfig set up as the search above mirrors; imported only when that search is unsure. */
async function explorer() {
  const { cosmiconfig, defaultLoaders } = await import('cosmiconfig');
  return cosmiconfig('promptlock', {
    searchPlaces: [...CONFIG_FILE_NAMES],
    packageProp: 'promptlock',
    searchStrategy: 'project',
    // Watch mode reloads the same file: never serve a stale result.
    cache: false,
    loaders: {
      '.ts': loadModule,
      '.mts': loadModule,
      '.js': loadModule,
      '.mjs': loadModule,
      '.json': (filepath: string, content: string) => {
        rejectConflictMarkers(filepath, content);
        return defaultLoaders['.json'](filepath, content);
      },
    },
  });
}

/** The direct path cannot answer exactly as cosmiconfig would: cosmiconfig decides (and reports). */
const UNSURE = Symbol('unsure');

/**
 * cosmiconfig's search (`searchStrategy: 'project'`), done directly: in each folder from `cwd` up,
 * the search places in order, an empty file or a package.json without a "promptlock" key skipped;
 * the search ends in the first folder holding a package.json (or package.yaml). It spares loading
 * cosmiconfig and its JSON parser with every command (README, "Performance"). Anything it does not
 * mirror exactly — a cosmiconfig meta config where the process runs, invalid JSON (whose error
 * cosmiconfig words), a `$import` key — is UNSURE, and cosmiconfig searches as before.
 */
async function searchDirect(cwd: string): Promise<SearchResult | typeof UNSURE> {
  const processDir = process.cwd();
  if (existsSync(path.join(processDir, '.config')) || existsSync(path.join(processDir, 'package.yaml'))) return UNSURE;
  const processPackage = await readFile(path.join(processDir, 'package.json'), 'utf8').catch(() => undefined);
  if (processPackage?.includes('"cosmiconfig"')) {
    try {
      if ((JSON.parse(processPackage) as { cosmiconfig?: unknown } | null)?.cosmiconfig !== undefined) return UNSURE;
    } catch {
      return UNSURE;
    }
  }
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    for (const name of CONFIG_FILE_NAMES) {
      const result = await readDirect(path.join(dir, name), false);
      if (result !== null) return result;
    }
    if (existsSync(path.join(dir, 'package.json')) || existsSync(path.join(dir, 'package.yaml'))) return null;
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * One file as cosmiconfig reads it: null when the search goes on past it (missing, unreadable,
 * empty, a package.json without the key), else its config.
 */
async function readDirect(filepath: string, explicit: boolean): Promise<SearchResult | typeof UNSURE> {
  let content: string;
  try {
    content = await readFile(filepath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!explicit && (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR' || code === 'EACCES')) return null;
    return UNSURE;
  }
  rejectConflictMarkers(filepath, content);
  let config: unknown;
  if (content.trim() === '') {
    config = undefined;
  } else if (filepath.endsWith('.json')) {
    try {
      config = JSON.parse(content);
    } catch {
      return UNSURE;
    }
    if (path.basename(filepath) === 'package.json') {
      if (config === null || typeof config !== 'object') return UNSURE;
      config = (config as Record<string, unknown>).promptlock;
      if (config === undefined || config === null) return null;
    }
  } else {
    try {
      config = await loadModule(filepath, content);
    } catch (error) {
      // cosmiconfig's search goes on past these codes whatever threw them, and marks a loader's
      // error with its file, so the message names it.
      const code = (error as NodeJS.ErrnoException | null)?.code;
      if (!explicit && (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR' || code === 'EACCES')) return null;
      if (error !== null && typeof error === 'object') (error as { filepath?: string }).filepath = filepath;
      throw error;
    }
  }
  if (config !== null && typeof config === 'object' && Object.hasOwn(config, '$import')) return UNSURE;
  // cosmiconfig: an empty result is skipped by the search (and is a config of defaults when named);
  // null goes on searching (and, named, is a config of defaults too: see settle).
  if (config === null) return null;
  if (config === undefined) return explicit ? { filepath, config: undefined, isEmpty: true } : null;
  return { filepath, config };
}

async function settle(run: () => Promise<SearchResult>, filepath: string | undefined, explicit: boolean): Promise<ConfigFile | undefined> {
  try {
    const result = await run();
    if (!result) {
      // An explicit package.json without a "promptlock" key: that is a config of defaults.
      return explicit && filepath ? { filepath, config: {} } : undefined;
    }
    return { filepath: result.filepath, config: result.isEmpty ? {} : result.config };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const where = (error as { filepath?: string }).filepath ?? filepath ?? 'the config file';
    const lines = (error instanceof Error ? error.message : String(error)).split('\n');
    // cosmiconfig's JSON errors say "JSON Error in <file>:" first and the reason after.
    const first = /^JSON Error in /.test(lines[0]!) && lines[1] ? lines[1] : lines[0]!;
    const reason = first
      .replace(/^(?:Error: )?ParseError: /, '')
      .replace(/ while parsing '.*'$/s, '')
      .trim();
    const at = path.isAbsolute(where) ? await locate(error, where) : undefined;
    const place = at ? `${where}:${at.line}:${at.column}` : where;
    throw new ConfigError(`Could not load config file ${place}: ${at?.reason ?? reason}${at?.frame ? `\n${at.frame}` : ''}`, {
      cause: error,
      hint: 'Fix the file so it runs on its own and has a default export (export default defineConfig({ … })).',
    });
  }
}

interface Location {
  line: number;
  column: number;
  frame: string | undefined;
  /** Said instead of the loader's reason (a JSON text nested too deep). */
  reason: string | undefined;
}

/**
 * Where in the config file a load failed: a syntax error's position (jiti puts `file:line:col` in
 * its message; JSON is re-parsed with TypeScript's JSON parser, which reports one), or the first
 * stack frame in the file for an error thrown while it ran. Undefined when nothing points into it.
 */
async function locate(error: unknown, filepath: string): Promise<Location | undefined> {
  let text: string;
  try {
    text = await readFile(filepath, 'utf8');
  } catch {
    return undefined;
  }
  let line: number | undefined;
  let column: number | undefined;
  let reason: string | undefined;
  if (filepath.endsWith('.json')) {
    const problem = await jsonProblem(text);
    if (problem !== undefined) {
      reason = problem.reason;
      const before = text.slice(0, problem.offset).split('\n');
      line = before.length;
      column = before[before.length - 1]!.length + 1;
    }
  } else {
    const message = error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error);
    const escaped = filepath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const match = new RegExp(`${escaped}:(\\d+):(\\d+)`).exec(message);
    if (match) {
      line = Number(match[1]);
      column = Number(match[2]);
      // Babel's parse errors count columns from 0; stack frames from 1.
      if (/ParseError/.test(message)) column += 1;
    }
  }
  if (line === undefined || column === undefined) return undefined;
  // jiti's wrapper shares the first line of transpiled code: a column past the end points nowhere.
  const shown = text.split(/\r?\n/)[line - 1];
  if (shown !== undefined && column > shown.length) column = shown.search(/\S|$/) + 1;
  return { line, column, frame: codeFrame(text, line, column), reason };
}

/** Characters of a long line shown before the column in a code frame (and half as many after). */
const FRAME_WIDTH = 80;

/**
 * Two lines before, the line itself with a caret under the column, one line after. A long line
 * (a minified or deeply nested file) is cut to a window around the column, marked with "…".
 */
function codeFrame(text: string, line: number, column: number): string | undefined {
  const lines = text.split(/\r?\n/);
  if (line < 1 || line > lines.length) return undefined;
  const first = Math.max(1, line - 2);
  const last = Math.min(lines.length, line + 1);
  const width = String(last).length;
  const from = Math.max(0, column - 1 - FRAME_WIDTH);
  const clip = (shown: string) =>
    `${from > 0 ? '…' : ''}${shown.slice(from, column - 1 + FRAME_WIDTH / 2)}${shown.length > column - 1 + FRAME_WIDTH / 2 ? '…' : ''}`;
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    const gutter = `${n === line ? '>' : ' '} ${String(n).padStart(width)} | `;
    out.push(`${gutter}${clip(lines[n - 1]!)}`.trimEnd());
    if (n === line)
      out.push(`  ${' '.repeat(width)} | ${(from > 0 ? ' ' : '') + lines[n - 1]!.slice(from, column - 1).replace(/[^\t]/g, ' ')}^`);
  }
  return out.join('\n');
}

/**
 * Loads .ts/.mts/.js/.mjs through jiti, so a TypeScript config can import other .ts files and
 * `import { defineConfig } from 'promptlock'` works even where the project has no
 * node_modules/promptlock (e.g. run through npx): that import is served from this very module.
 * A config that imports nothing but promptlock is transpiled once: the code is kept in the user's
 * cache folder (see configCachePath), keyed by the file's content, and later runs evaluate it
 * without jiti (README, "Performance").
 */
const loadModule: Loader = async (filepath, content) => {
  rejectConflictMarkers(filepath, content);
  const plain = await loadPlainConfig(content);
  if (plain.ok) return plain.value;
  const cached = await loadCachedConfig(filepath, content);
  if (cached.ok) return cached.value;
  // jiti costs ~0.1 s to import: load it only for configs that need it.
  const { createJiti } = await import('jiti');
  const promptlock = { defineConfig, default: { defineConfig } };
  const jiti = createJiti(filepath, { moduleCache: false, interopDefault: true, virtualModules: { promptlock } });
  const exported = await jiti.import<unknown>(filepath, { default: true });
  const value = typeof exported === 'function' ? await (exported as () => unknown)() : exported;
  await saveConfigCache(filepath, content, value, () =>
    jiti.transform({ source: content, filename: filepath, ts: /\.m?ts$/.test(filepath), async: true }),
  );
  return value;
};

/** Revision of the cached code's form: bump when the evaluation below changes. */
const CONFIG_CACHE_REVISION = 1;
/** How jiti's transpiled code asks for promptlock (the only import a cached config may have). */
const JITI_PROMPTLOCK_IMPORT = /\bawait jitiImport\("promptlock"\)/g;
/** Anything else that reaches outside the code itself: such configs are left to jiti every time. */
const NEEDS_MODULES = /\bjiti\w*|\brequire\b|\bimport\b|\bmodule\b|__dirname|__filename/;

/**
 * Where a config's cached code lives: in the user's cache folder (`$XDG_CACHE_HOME`, else
 * `~/.cache`), named after the config's path, never inside the project. A cache file committed to
 * a repository would be code that runs on every machine while reviewers read only the config
 * beside it (docs/security.md, "Files on disk"); outside the project, only this user's own runs
 * write it.
 */
function configCachePath(filepath: string): string {
  const xdg = process.env.XDG_CACHE_HOME;
  const home = xdg && path.isAbsolute(xdg) ? xdg : path.join(homedir(), '.cache');
  return path.join(home, 'promptlock', 'config', `${createHash('sha256').update(filepath).digest('base64url')}.js`);
}

/** The first line of the cache file: the cache's revision and a digest of promptlock's version and the config's path and content. */
function configCacheKey(filepath: string, content: string): string {
  const digest = createHash('sha256').update(`${VERSION}\0${filepath}\0${content}`).digest('base64url');
  return `// promptlock config cache ${CONFIG_CACHE_REVISION} ${digest}`;
}

/**
 * The config evaluated from its cached transpiled code, or `{ ok: false }` when there is no cache
 * for this content, or the cache is damaged, or the code throws (jiti then loads the file and
 * reports the error as it always has).
 */
async function loadCachedConfig(filepath: string, content: string): Promise<{ ok: true; value: unknown } | { ok: false }> {
  const text = await readFile(configCachePath(filepath), 'utf8').catch(() => undefined);
  const key = configCacheKey(filepath, content);
  if (!text?.startsWith(`${key}\n`)) return { ok: false };
  try {
    const run = new AsyncFunction('exports', 'jitiImport', `${text.slice(key.length + 1)}\n;return exports;`);
    const exports = (await run({}, async (name: string) => {
      if (name !== 'promptlock') throw new Error(`unexpected import ${name}`);
      return { defineConfig, default: { defineConfig } };
    })) as Record<string, unknown>;
    const exported = 'default' in exports ? exports.default : exports;
    return { ok: true, value: typeof exported === 'function' ? await (exported as () => unknown)() : exported };
  } catch {
    return { ok: false };
  }
}

/**
 * Keeps the transpiled code of a config that needs no module but promptlock. Never a config that
 * holds an API key (refused on load anyway; the cache holds code, never a value of the environment
 * or of .env files). Best effort: a folder that cannot be written only means no cache.
 */
async function saveConfigCache(filepath: string, content: string, value: unknown, transform: () => string): Promise<void> {
  try {
    if (findKeyIn(content)) return;
    rejectApiKey(value, filepath);
    const code = transform();
    if (NEEDS_MODULES.test(code.replace(JITI_PROMPTLOCK_IMPORT, ''))) return;
    await mkdir(path.dirname(configCachePath(filepath)), { recursive: true });
    await writeFileAtomic(configCachePath(filepath), `${configCacheKey(filepath, content)}\n${code}`);
  } catch {
    // No cache: the next run transpiles again.
  }
}

/** `import { defineConfig } from 'promptlock'` (or `import type …`) on a line of its own. */
const PROMPTLOCK_IMPORT =
  /^[ \t]*import[ \t]+(?:type[ \t]+)?\{[ \t]*(?:type[ \t]+)?defineConfig[ \t]*\}[ \t]*from[ \t]*(['"])promptlock\1[ \t]*;?[ \t]*$/m;
/** Anything that needs a module system or the file's own location: such configs go through jiti. */
const NEEDS_JITI =
  /\bimport\b|\brequire\b|\bexport\b(?![ \t]+default\b)|__dirname|__filename|\bdefineConfig[ \t]*=|\b__promptlockDefault\b/;
const AsyncFunction = (async () => undefined).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<unknown>;

/**
 * The fast path for the usual config (the one `promptlock init` writes): plain JavaScript whose
 * only import is `defineConfig` from promptlock, evaluated directly as a strict async function
 * instead of through jiti (~0.1 s of start-up; README, "Performance"). Anything else — TypeScript
 * syntax, other imports, `import.meta`, a failure while it runs — is `{ ok: false }`, and jiti
 * loads the file as before (so errors are reported exactly as before).
 */
export async function loadPlainConfig(content: string): Promise<{ ok: true; value: unknown } | { ok: false }> {
  const imports = content.match(new RegExp(PROMPTLOCK_IMPORT.source, 'gm')) ?? [];
  if (imports.length > 1) return { ok: false };
  // Blanked, not removed, so line numbers stay those of the file.
  const body = imports.length === 1 ? content.replace(PROMPTLOCK_IMPORT, '') : content;
  const exports = body.match(/\bexport[ \t]+default\b/g) ?? [];
  if (exports.length !== 1 || NEEDS_JITI.test(body.replace(/\bexport[ \t]+default\b/, ''))) return { ok: false };
  let run: (...values: unknown[]) => Promise<unknown>;
  try {
    run = new AsyncFunction(
      'defineConfig',
      `"use strict";let __promptlockDefault;\n${body.replace(/\bexport[ \t]+default\b/, '__promptlockDefault =')}\n;return __promptlockDefault;`,
    );
  } catch {
    return { ok: false }; // not plain JavaScript (TypeScript syntax): jiti transpiles it
  }
  try {
    const exported = await run(defineConfig);
    return { ok: true, value: typeof exported === 'function' ? await (exported as () => unknown)() : exported };
  } catch {
    return { ok: false };
  }
}
