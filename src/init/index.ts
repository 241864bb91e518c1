// `promptlock init`, `add` and `remove`: the starter config, package scripts, and prompts-list edits.
export { initProject, type InitOptions, type InitResult } from './init-project.js';
export { addPackageScripts, PROMPTLOCK_SCRIPTS, type ScriptChange, type ScriptsEdit } from './package-scripts.js';
export { addPromptToConfig, removePromptFromConfig } from './edit-prompts-config.js';
export type { PromptEdit } from './plan-prompt-edit.js';
export { locateConfigFile } from './locate-config-file.js';
export { readStarterConfig } from './starter-config.js';
