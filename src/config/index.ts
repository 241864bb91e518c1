export { defineConfig } from './define-config.js';
export { loadConfig } from './load-config.js';
export type { LoadConfigOptions } from './load-config.js';
export { parsePromptEntry } from './prompt-entry.js';
export type { PromptEntry } from './prompt-entry.js';
export { DEFAULT_BASE_URL, isLoopbackHost } from './base-url.js';
export { CONFIG_FILE_NAMES } from './read-config-file.js';
export type { UserConfig, ResolvedConfig } from './types.js';
