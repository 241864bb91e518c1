// Code generation: lockfile + snapshots → the typed prompts module.
export { generateModule, generateModuleFiles, BANNER } from './generate-module.js';
export { moduleFormat, OMITTABLE_FIELDS } from './module-format.js';
export type { ModuleFile, ModuleOptions, OmittableField } from './module-format.js';
export { generate, renderModuleFromStore } from './generate.js';
export type { GenerateOptions, GenerateResult } from './generate.js';
export type { CodegenPrompt } from './prompt-to-function.js';
export { typecheckModule } from './typecheck-module.js';
export { functionNames } from './naming.js';
