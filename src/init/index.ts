// `promptlock init`: the starter config and the package scripts (the prompts-list editors of
// `add`/`remove` are in config/edit/).
export { initProject, type InitOptions, type InitResult } from './init-project.js';
export { addPackageScripts, PROMPTLOCK_SCRIPTS, type ScriptChange, type ScriptsEdit } from './package-scripts.js';
export { readStarterConfig } from './starter-config.js';
