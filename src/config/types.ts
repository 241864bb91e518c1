import type { z } from 'zod';
import type { configShape, ParsedConfig } from './config-schema.js';

/**
 * The options of `prompts.config.ts`, as written: the input of the config schema
 * (`configSchema`, src/config/config-schema.ts), whose JSDoc on each option is the config reference.
 */
export type UserConfig = z.input<z.ZodObject<typeof configShape, z.core.$strict>>;

/**
 * The config after defaults, environment overrides and path resolution: the parsed options, with
 * the three paths made absolute under their own names. Paths are absolute.
 */
export interface ResolvedConfig extends Omit<ParsedConfig, 'snapshots' | 'lockfile' | 'output'> {
  /** Absolute path of the config file (`loadConfig` fails when there is none). */
  configPath: string;
  /** The folder paths resolve against: the config file's folder. */
  rootDir: string;
  snapshotsDir: string;
  lockfilePath: string;
  outputPath: string;
  /** From PROMPTLOCK_API_KEY, else BAYT_API_KEY. Never from a file. */
  apiKey: string | undefined;
  /** Where the key was read, as errors name it: `PROMPTLOCK_API_KEY in .env.local`. */
  apiKeySource?: string | undefined;
}
