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
export { defineConfig, loadConfig } from './config/index.js';
export type { UserConfig, ResolvedConfig } from './config/types.js';
export { sync } from './sync/sync.js';
export type { SyncOptions, SyncResult, SyncEvent, PromptChange } from './sync/sync.js';
export { check } from './sync/check.js';
export type { CheckOptions, CheckResult } from './sync/check.js';
export { diffPrompts, formatDiffText, formatDiffMarkdown } from './sync/diff-prompts.js';
export type { PromptDiff } from './sync/diff-prompts.js';
export { generate, generateModule } from './codegen/index.js';
export type { GenerateOptions, GenerateResult } from './codegen/index.js';
export { startWatch } from './watch/watch.js';
export type { WatchHandle, WatchOptions, WatchStats, WatchLog } from './watch/watch.js';
export { renderModuleFromStore, typecheckModule } from './codegen/index.js';
export type { CodegenPrompt } from './codegen/index.js';
export { startServer, LOCAL_TEST_KEY } from './server/index.js';
export type { ServerOptions, RunningServer, ServerStats, FaultKind } from './server/index.js';
export { createClient } from './api/index.js';
export type { ClientOptions, PromptServiceClient } from './api/index.js';
export { initProject, addPromptToConfig, removePromptFromConfig, addPackageScripts } from './init/index.js';
export type { InitOptions, InitResult, PromptEdit, ScriptChange } from './init/index.js';
