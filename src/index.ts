// The public surface of promptlock (README, "Programmatic API"): sync, generate, check, diff,
// startServer and defineConfig with their types, and the named errors. Nothing internal: the
// bundler plugin is promptlock/vite (…/webpack, …/rollup, …/esbuild, …/rspack).
export { sync, syncWorkspace, generate, check, diff } from './library.js';
export type {
  ProjectOptions,
  SyncOptions,
  SyncResult,
  SyncEvent,
  SyncWorkspaceOptions,
  SyncWorkspaceResult,
  AppSyncResult,
  GenerateOptions,
  GenerateResult,
  CheckOptions,
  CheckResult,
  DiffOptions,
  DiffResult,
  PromptDiff,
} from './library.js';
export type { PromptChange } from './sync/types.js';
export type { FieldDiff } from './sync/diff-prompts.js';
export { startServer, LOCAL_TEST_KEY } from './server/index.js';
export type { ServerOptions, RunningServer, ServerStats, FaultKind } from './server/index.js';
export { defineConfig } from './config/define-config.js';
export type { UserConfig } from './config/types.js';
export type { Limits } from './limits.js';
export {
  PromptlockError,
  ConfigError,
  ServiceError,
  LockfileError,
  TemplateError,
  AggregatePromptlockError,
} from './errors.js';
export type * from './types.js';
