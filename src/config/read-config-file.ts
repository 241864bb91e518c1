import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { cosmiconfig, defaultLoaders, type Loader } from 'cosmiconfig';
import { ConfigError } from '../errors.js';
import { defineConfig } from './define-config.js';

/** Where cosmiconfig looks in each folder, first match wins (DESIGN.md, "Configuration"). */
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

/**
 * Finds the config from `cwd` upward (stopping at the nearest package.json folder), or loads
 * `configPath` (relative to `cwd`). Returns undefined when no config exists.
 */
export async function readConfigFile(cwd: string, configPath?: string): Promise<ConfigFile | undefined> {
  const explorer = cosmiconfig('promptlock', {
    searchPlaces: [...CONFIG_FILE_NAMES],
    packageProp: 'promptlock',
    searchStrategy: 'project',
    // Watch mode reloads the same file: never serve a stale result.
    cache: false,
    loaders: { '.ts': loadModule, '.mts': loadModule, '.js': loadModule, '.mjs': loadModule, '.json': defaultLoaders['.json'] },
  });
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
    return settle(() => explorer.load(filepath), filepath, true);
  }
  return settle(() => explorer.search(cwd), undefined, false);
}

async function settle(
  run: () => Promise<{ config: unknown; filepath: string; isEmpty?: boolean } | null>,
  filepath: string | undefined,
  explicit: boolean,
): Promise<ConfigFile | undefined> {
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
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ConfigError(`Could not load config file ${where}: ${reason}`, {
      cause: error,
      hint: 'Fix the file so it runs on its own and has a default export (export default defineConfig({ … })).',
    });
  }
}

/**
 * Loads .ts/.mts/.js/.mjs through jiti, so a TypeScript config can import other .ts files and
 * `import { defineConfig } from 'promptlock'` works even where the project has no
 * node_modules/promptlock (e.g. run through npx): that import is served from this very module.
 */
const loadModule: Loader = async (filepath) => {
  // jiti costs ~0.1 s to import: load it only for configs that are code.
  const { createJiti } = await import('jiti');
  const jiti = createJiti(filepath, {
    moduleCache: false,
    interopDefault: true,
    virtualModules: { promptlock: { defineConfig, default: { defineConfig } } },
  });
  const exported = await jiti.import<unknown>(filepath, { default: true });
  return typeof exported === 'function' ? await (exported as () => unknown)() : exported;
};
