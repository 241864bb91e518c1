/**
 * Finding and loading `prompts.config.*` (README, "Configuration"), the way GraphQL Codegen's CLI
 * does it: cosmiconfig searches from the working directory up to the nearest package.json folder,
 * jiti loads TypeScript and ES module configs, and JSON is parsed here so that an error can say
 * where (src/config/config-load-error.ts). Both libraries are imported on first use; the only
 * cache is jiti's own, inside node_modules (below).
 */
import { existsSync, lstatSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Loader } from 'cosmiconfig';
import { ConfigError } from '../errors.js';
import { foldersUp } from '../util/folders-up.js';
import { rejectConflictMarkers } from './config-conflict.js';
import { describeLoadError } from './config-load-error.js';
import { defineConfig } from './define-config.js';

/** Where cosmiconfig looks in each folder, first match wins (README.md, "Configuration"). */
export const CONFIG_FILE_NAMES = [
  'package.json',
  'prompts.config.ts',
  'prompts.config.mts',
  'prompts.config.js',
  'prompts.config.mjs',
  'prompts.config.json',
] as const;

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

function checkNamedFile(filepath: string): void {
  if (!existsSync(filepath) || !statSync(filepath).isFile()) {
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
 * jiti keeps its transpiled code in the project's node_modules/.cache/jiti, beside the code the
 * project already runs, never in a shared folder (its default without node_modules is the system's
 * temporary folder, where anyone can plant a file under the name it computes): without
 * node_modules, nothing is cached (docs/security.md, "Files on disk").
 */
const loadModule: Loader = async (filepath, content) => {
  rejectConflictMarkers(filepath, content);
  const { createJiti } = await import('jiti');
  const promptlock = { defineConfig, default: { defineConfig } };
  const jiti = createJiti(filepath, {
    moduleCache: false,
    fsCache: jitiCache(filepath),
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
 * node_modules/.cache/jiti of the nearest node_modules folder from the config's folder up to its
 * project's (the nearest holding package.json or .git), or false: never one above the project.
 */
function jitiCache(filepath: string): string | false {
  const projectRoot = (dir: string) => existsSync(path.join(dir, 'package.json')) || existsSync(path.join(dir, '.git'));
  for (const dir of foldersUp(path.dirname(filepath), { stopAfter: projectRoot })) {
    const modules = path.join(dir, 'node_modules');
    if (existsSync(modules) && lstatSync(modules).isDirectory()) return path.join(modules, '.cache', 'jiti');
  }
  return false;
}
