// The config editors of `add`, `remove` (and `init`'s package.json scripts): edits of a config's
// prompts list that keep its formatting and comments.
export { addPromptToConfig, removePromptFromConfig } from './edit-prompts-config.js';
export { locateConfigFile } from './locate-config-file.js';
export type { PromptEdit } from './plan-prompt-edit.js';
