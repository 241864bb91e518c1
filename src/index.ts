// The public surface of promptlock: the library API, defineConfig, types and errors.
export {
  PromptlockError,
  ConfigError,
  ServiceError,
  LockfileError,
  TemplateError,
  AggregatePromptlockError,
} from './errors.js';
export type * from './types.js';
export { parsePackageName, formatPackageName, PACKAGE_NAME_PATTERN } from './package-name.js';
export type { PackageName, Selector } from './package-name.js';
export { maskKey } from './secrets.js';
export { parseTemplate, listVariables, renderTemplate, stringifyValue } from './template/index.js';
export type { Variable, VariableType, Segment, Placeholder } from './template/index.js';
export type { Lockfile, LockEntry, LockedFile } from './store/lockfile-format.js';
export { runCli } from './cli/run-cli.js';
export { VERSION } from './version.js';
