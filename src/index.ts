// The public surface of promptlock (docs/api.md): sync, generate, check, diff,
// startServer and defineConfig with their types, and the named errors. Nothing internal: the
// bundler plugin is promptlock/vite (…/webpack, …/rollup, …/esbuild, …/rspack).

export { defineConfig } from './config/define-config.js';
export type { UserConfig } from './config/types.js';
export {
  AggregatePromptlockError,
  ConfigError,
  LockfileError,
  PromptlockError,
  ServiceError,
  TemplateError,
} from './errors.js';
export type {
  AppSyncResult,
  AppTypecheck,
  CheckOptions,
  CheckProblem,
  CheckResult,
  CompileError,
  DiffOptions,
  DiffResult,
  GenerateOptions,
  GenerateResult,
  ProjectOptions,
  PromptDiff,
  PullRequestReport,
  SyncEvent,
  SyncOptions,
  SyncResult,
  SyncWorkspaceOptions,
  SyncWorkspaceResult,
} from './library.js';
export { check, diff, generate, sync, syncWorkspace } from './library.js';
export type { Limits } from './limits.js';
export type { FaultKind, RunningServer, ServerOptions, ServerStats } from './server/index.js';
export { LOCAL_TEST_KEY, startServer } from './server/index.js';
export type { FieldDiff } from './sync/diff-prompts.js';
export type { PromptChange } from './sync/types.js';
// The service's resources, named one by one: `export type *` would also declare the module's
// helpers (`promptTexts`…) as exports in the built .d.ts, which the package does not export.
export type {
  ContextDownload,
  ContextItem,
  ContextItemType,
  HealthStatus,
  Prompt,
  PromptListPage,
  PromptMetadata,
  PromptSummary,
  ServiceDescriptor,
  TextField,
} from './types.js';
