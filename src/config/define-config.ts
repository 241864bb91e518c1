import type { UserConfig } from './types.js';

/**
 * Types a `prompts.config.ts`. It returns its argument unchanged: the checking happens in
 * `loadConfig`, so a config written without it (plain `.json`, `package.json`) behaves the same.
 */
export function defineConfig(config: UserConfig): UserConfig {
  return config;
}
