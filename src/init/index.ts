// `promptlock init`: the starter config and the package scripts (the prompts-list editors of
// `add`/`remove` are in config/edit/).
export { type InitResult, initProject } from './init-project.js';
export { addPackageScripts } from './package-scripts.js';
