// Code generation: locked prompts → the typed module's files. Pure: it reads and writes no file
// (the store does, src/store/; `generate` in src/sync/generate.ts joins the two).
export { generateModule, generateModuleFiles } from './generate-module.js';
export type { OmittableField } from './module-format.js';
export type { CodegenPrompt } from './prompt-to-function.js';
export { typecheckModule } from './typecheck-module.js';
