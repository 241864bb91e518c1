/**
 * Finding and loading `prompts.config.*` (README, "Configuration"), the way GraphQL Codegen's CLI
 * does it: cosmiconfig searches from the working directory up to the nearest package.json folder,
 * jiti loads TypeScript and ES module configs, and JSON is parsed here so that an error can say
 * where (src/config/config-load-error.ts). Both libraries are imported on first use; the only
 * cache is jiti's own, in a private folder of the user's (below).
 */
import { existsSync, lstatSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Loader } from 'cosmiconfig';
import { ConfigError } from '../errors.js';
import { foldersUp } from '../util/folders-up.js';
import { CONFIG_FILE_NAMES } from '../util/project-config.js';
import { inspectBoundedSync } from '../util/read-bounded.js';
import { rejectConflictMarkers } from './config-conflict.js';
import { describeLoadError } from './config-load-error.js';
import { configRule } from './config-text.js';
import { defineConfig } from './define-config.js';

export { CONFIG_FILE_NAMES };

const EXTENSIONS = ['.ts', '.mts', '.js', '.mjs', '.json'];

export interface ConfigFile {
  filepath: string;
  /** What the file exported (its default export), before validation. */
  config: unknown;
}

/**
 * Finds the config from `cwd` upward (stopping at the nearest package.json folder), or loads
 * `configPath` (relative to `cwd`). Returns undefined when no config exists.
 */
export async function readConfigFile(cwd: string, configPath?: string): Promise<ConfigFile | undefined> {
  const filepath = configPath === undefined ? undefined : path.resolve(cwd, configPath);
  if (filepath !== undefined) checkNamedFile(filepath);
  else checkSearchPlaces(cwd);
  const explorer = await createExplorer();
  try {
    const result = filepath === undefined ? await explorer.search(cwd) : await explorer.load(filepath);
    // A named file that exports nothing (or a package.json without the key) is a config of defaults.
    if (!result) return filepath === undefined ? undefined : { filepath, config: {} };
    return { filepath: result.filepath, config: result.isEmpty || result.config === null ? {} : result.config };
  } catch (error) {
    throw await describeLoadError(error, filepath);
  }
}

/**
 * cosmiconfig reads what it finds without a bound, so the places it will read are checked first as
 * the bounded reader would read them (src/config/config-text.ts): a FIFO config hung `npm install`,
 * a link to /dev/zero grew it without end. The same walk as the search: up to the nearest
 * package.json folder, ending at the first config file.
 */
function checkSearchPlaces(cwd: string): void {
  for (const dir of foldersUp(cwd, { stopAfter: (folder) => existsSync(path.join(folder, 'package.json')) })) {
    for (const name of CONFIG_FILE_NAMES) {
      const file = path.join(dir, name);
      if (inspectConfig(file) && name !== 'package.json') return;
    }
  }
}

/** True when `file` is a config file the bounded reader would read; false when missing or a folder (the search skips one); refused otherwise. */
function inspectConfig(file: string): boolean {
  try {
    return inspectBoundedSync(file, configRule(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EISDIR') throw error;
    return false;
  }
}

function checkNamedFile(filepath: string): void {
  if (!inspectConfig(filepath)) {
    throw new ConfigError(`Config file not found: ${filepath}.`, {
      hint: `Check --config, or run \`promptlock init\` to create ${CONFIG_FILE_NAMES[1]}.`,
    });
  }
  const extension = path.extname(filepath);
  if (!EXTENSIONS.includes(extension)) {
    throw new ConfigError(`Cannot load config file ${filepath}: unsupported extension "${extension}".`, {
      hint: 'Use a .ts, .mts, .js, .mjs or .json file, or a "promptlock" key in package.json.',
    });
  }
}

async function createExplorer() {
  const { cosmiconfig } = await import('cosmiconfig');
  return cosmiconfig('promptlock', {
    searchPlaces: [...CONFIG_FILE_NAMES],
    packageProp: 'promptlock',
    searchStrategy: 'project',
    // Watch mode reloads the same file: never serve a stale result.
    cache: false,
    loaders: { '.ts': loadModule, '.mts': loadModule, '.js': loadModule, '.mjs': loadModule, '.json': loadJson },
  });
}

/** JSON configs and package.json: parsed by JSON.parse; where it failed is found on error. */
const loadJson: Loader = (filepath, content) => {
  rejectConflictMarkers(filepath, content);
  return JSON.parse(content.replace(/^\uFEFF/, '')) as unknown;
};

/**
 * Loads .ts/.mts/.js/.mjs through jiti, so a TypeScript config can import other .ts files and
 * `import { defineConfig } from 'promptlock'` works even where the project has no
 * node_modules/promptlock (e.g. run through npx): that import is served from this very module.
 * jiti keeps its transpiled code in a private folder of the user's (`jitiCache`), never in the
 * project or a shared folder.
 */
const loadModule: Loader = async (filepath, content) => {
  rejectConflictMarkers(filepath, content);
  const { createJiti } = await import('jiti');
  const promptlock = { defineConfig, default: { defineConfig } };
  const jiti = createJiti(filepath, {
    moduleCache: false,
    fsCache: jitiCache(),
    interopDefault: false,
    virtualModules: { promptlock },
  });
  const module = await jiti.import<Record<string, unknown>>(filepath);
  // The default export (a config of only named exports is the namespace); `null` and nothing are
  // what cosmiconfig skips.
  const exported = module !== null && typeof module === 'object' && 'default' in module ? module.default : module;
  return typeof exported === 'function' ? await (exported as () => unknown)() : exported;
};

/**
 * jiti's cache of transpiled code: a folder of the user's own (`$XDG_CACHE_HOME/promptlock/jiti`,
 * else `~/.cache/promptlock/jiti`), made private (0700) and used only while it is a real folder
 * that only this user can write. jiti names a cache file after the config's path and accepts it
 * when it ends with a hash of the config's source: both computable, so a folder anyone else can
 * write into (the system's temporary folder, jiti's default) or one that comes with a repository
 * (`node_modules/.cache` of a checkout) would run code planted there instead of the reviewed
 * config. Without such a folder nothing is cached (docs/security.md, "Files on disk").
 */
function jitiCache(): string | false {
  const base = process.env.XDG_CACHE_HOME || (os.homedir() && path.join(os.homedir(), '.cache'));
  if (!base || !path.isAbsolute(base)) return false;
  const dir = path.join(base, 'promptlock', 'jiti');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stats = lstatSync(dir);
    const mine = typeof process.getuid !== 'function' || stats.uid === process.getuid();
    return stats.isDirectory() && mine && (stats.mode & 0o077) === 0 ? dir : false;
  } catch {
    return false;
  }
}
