/**
 * The sync pipeline's types, in the order data flows: the options of a run, what it starts from
 * (`SyncInputs`), what resolving decided (`ResolvedPrompts`), what it reports (`SyncResult`);
 * and `check`'s findings. Every sync/ module imports its types from here, so the modules form no
 * cycle.
 */
import type { ExportRename } from '../codegen/naming.js';
import type { RequestedEntry } from '../config/prompt-entry.js';
import type { ResolvedConfig } from '../config/types.js';
import type { Selector } from '../package-name.js';
import type { StoreView } from '../store/journal.js';
import type { LockEntry, LockedFile, Lockfile } from '../store/lockfile-format.js';
import type { MergeDecision } from '../store/lockfile-merge.js';
import type { StagedFile, Stager } from '../store/staged-file.js';
import type { ContextDownload, Prompt, PromptSummary } from '../types.js';
import type { BreakingChange } from './breaking-change.js';
import type { AppTypecheck } from './compile-errors.js';
import type { PlaceholderNote } from './placeholder-notes.js';

/**
 * Receives a downloaded body as it arrives (`reset` before each attempt's first chunk). Declared
 * here, where the client is injected: the service client in src/api/ matches it structurally.
 */
interface BodySink {
  reset(): Promise<void>;
  write(chunk: Uint8Array): Promise<void>;
}

/** What the sync engine needs of the service client (src/api implements it). */
export interface SyncClient {
  listAll(): Promise<PromptSummary[]>;
  /**
   * The same list page by page, so a sync starts its gets with the first page. Optional: a client
   * without it (a cached or observed listing) is read through `listAll`, as one page.
   */
  listPages?(): AsyncIterable<PromptSummary[]>;
  getPrompt(packageName: string, variables?: Record<string, string>): Promise<Prompt>;
  getContextDownloadUrl(contextId: string): Promise<ContextDownload>;
  /** A download written to `sink` as it arrives (a staged file), never held whole in memory. */
  downloadFileTo(url: string, options: { maxBytes: number; expectedSize?: number }, sink: BodySink): Promise<number>;
  readonly stats: { requests: number; retries: number; status429: number; waitedMs: number };
  /** Requests it sends at once: the resolvers run as many prompts at a time (src/sync/for-each-prompt.ts). */
  readonly concurrency: number;
  close(): Promise<void>;
}

export type SyncEvent =
  | { type: 'phase'; phase: 'list' | 'fetch' | 'write'; total?: number }
  | { type: 'prompt'; name: string; done: number; total: number; fetched: boolean };

export interface SyncRunOptions {
  config: ResolvedConfig;
  /** Opens the service client (sending nothing): once per run, which reads its `concurrency`. */
  connect: () => Promise<SyncClient>;
  /** Restrict the sync to these prompts (names from the config, with or without selector). */
  names?: readonly string[];
  /** Install exactly what the lockfile says (like `npm ci`). */
  frozen?: boolean;
  /** Download file context items; defaults to `config.contextFiles`. */
  withFiles?: boolean;
  /** Name every prompt's export afresh instead of keeping the names in the lockfile. */
  renameExports?: boolean;
  /** Get every prompt, even those the list proves unchanged (`sync --refetch`). */
  refetch?: boolean;
  /**
   * Drop only what the config no longer asks for, keep every other prompt as locked (`promptlock
   * remove`, src/sync/resolve-removal.ts).
   */
  removeUnrequested?: boolean;
  /** Compute everything, write nothing (for `diff`). */
  dryRun?: boolean;
  onEvent?: (event: SyncEvent) => void;
}

/**
 * Why a target is asked for at exactly one version instead of what its selector answers today
 * (src/sync/merge-resolution.ts):
 * - `pinned`: its selector is that version, locked before: kept from its intact snapshot, never
 *   fetched again (docs/cli.md, "Configuration");
 * - `merged`: a lockfile merged from a git conflict holds it: kept from its intact snapshot, else
 *   fetched at exactly that version, never at what a floating selector answers now;
 * - `confirm`: only one side of the merge locked it, or the sides locked it with two texts: fetched
 *   at exactly that version to confirm the service has it (a branch could have forged it), never
 *   kept from its snapshot alone, never skipped; `decision` records which side the answer is.
 */
export type ExactVersion = { version: string } & (
  | { reason: 'pinned' }
  | { reason: 'merged' }
  | { reason: 'confirm'; decision: MergeDecision }
);

/** A prompt the config asks for, with the selector it is requested at. */
export interface Target {
  name: string;
  selector: Selector | null;
  /** Asked for at exactly this locked version, and why; absent: at what its selector answers. */
  exact?: ExactVersion;
}

/** What one sync run knows before it fetches: shared by the normal and the frozen path. */
export interface SyncInputs {
  options: SyncRunOptions;
  view: StoreView;
  /** The lockfile on disk (empty when there is none). */
  previous: Lockfile;
  entries: readonly RequestedEntry[];
  withFiles: boolean;
  connect: () => Promise<SyncClient>;
  /** After a merged lockfile, every locked version this run holds, and why (`merged` or `confirm`). */
  merged?: ReadonlyMap<string, ExactVersion>;
  /** Where downloaded context files are staged (in the work folder) until the commit moves them. */
  stager?: Stager;
  /**
   * Called with each prompt as soon as it is fetched, before the others are done: the commit
   * stages its files while the fetch goes on (docs/performance.md).
   */
  onFetched?: (fetched: FetchedPrompt) => Promise<void>;
}

/** One prompt fetched from the service, as the store keeps it. */
export interface FetchedPrompt {
  name: string;
  prompt: Prompt;
  /** The snapshot text; dropped (with `files`) once the commit staged them, so a run holds no file content (src/sync/sync.ts). */
  snapshot?: string;
  entry: LockEntry;
  /** Context files to write, relative to the snapshots folder with `/` separators: reused bytes, or a downloaded file staged on disk. */
  files: Array<{ path: string; content: Uint8Array | StagedFile }>;
}

/** A context file of the previous lock entry, on disk and intact: no download needed. */
export interface ReusableFile {
  locked: LockedFile;
  /** Bytes on disk, verified against `locked.integrity`. */
  content: Uint8Array;
}

/** What resolving decided: the new lockfile, the prompts it fetched, and the ones it kept. */
export interface ResolvedPrompts {
  next: Lockfile;
  fetched: FetchedPrompt[];
  /** Prompts not fetched this run, read from their snapshots. */
  kept: Map<string, Prompt>;
  /** Only some prompts were synced (names given): the others stay as locked. */
  partial: boolean;
  /** Floating prompts not fetched because the list named them at their locked version. */
  savedByList?: number;
  /** Prompts a glob (or "every prompt") matched that were left out, with the reason (a package with only a draft). */
  skipped?: SkippedPrompt[];
  /** What the run noticed and went on with (a list that names one prompt with two ids). */
  warnings?: string[];
  /** The list named no version at all, so the floating prompts it could have proven unchanged were each fetched. */
  listWithoutVersions?: boolean;
}

/**
 * A prompt the list named for a glob (or "every prompt") that a sync left out, and why: a package
 * with nothing at the glob's selector, or a prompt refused by the grammar or a limit. One locked
 * before stays at its locked version (README, "Placeholders").
 */
export interface SkippedPrompt {
  name: string;
  /** `no published version yet`, `no draft`, `Variable "count" has conflicting type hints: …`. */
  reason: string;
  /** What to do about it. */
  fix?: string;
  /** Refused by the grammar or a limit: `sync` exits 3 (docs/cli.md). */
  refused?: true;
  /** The field refused (`content`, `version`…) and, in a text, the line. */
  field?: string;
  line?: number;
  /** The version it stays locked at, when it was locked before. */
  kept?: string;
}

export interface PromptChange {
  name: string;
  from?: string;
  to?: string;
  /** Its snapshot is the same, its placeholders are read otherwise (the `placeholders` option, README "Placeholders"). */
  reread?: true;
}

export interface ConflictResolution {
  /** Conflicts (hunks) in the lockfile. */
  hunks: number;
  /** The packages the two sides disagreed on, and which side was kept. */
  decisions: MergeDecision[];
}

/** How the new lockfile differs from the previous one, prompt by prompt. */
export interface LockChanges {
  added: PromptChange[];
  changed: PromptChange[];
  removed: PromptChange[];
  unchanged: number;
}

export interface SyncResult extends LockChanges {
  prompts: number;
  /** Changed or removed prompts whose generated function breaks its callers, by name. */
  breaking: Array<{ name: string; change: BreakingChange }>;
  /** Prompts whose export name changed (only with `renameExports`, or a name removed from the lockfile). */
  renamed: ExportRename[];
  fetched: number;
  /** Gets the list saved: floating prompts it named at their locked version. */
  savedByList: number;
  /** Prompts a glob matched that this run left out (a package with only a draft, or no draft for `:draft`; a refused prompt). */
  skipped: SkippedPrompt[];
  /** What was read as text in the prompts this run added or changed, and hints that are no type. */
  placeholders: PlaceholderNote[];
  /** What the run noticed and went on with, one sentence each (a list naming one prompt with two ids). */
  warnings: string[];
  /**
   * True when the list named no version at all, so floating prompts locked before were each
   * fetched instead of proven unchanged by it: why a sync of unchanged prompts cost a get each.
   */
  listWithoutVersions: boolean;
  written: string[];
  deleted: string[];
  /** `sync --frozen`: each snapshot or context file it put back as the lockfile locks it. */
  restored: RestoredFile[];
  /** Prompts before (a dry run: every one; a sync: those it changed or removed) and after, for `diff` and `--report`. */
  before: Map<string, Prompt>;
  after: Map<string, Prompt>;
  requests: number;
  retries: number;
  status429: number;
  durationMs: number;
  /** Set when the lockfile had git conflict markers: how both sides were merged. */
  resolvedConflict?: ConflictResolution;
  /** Files of the module that held git conflict markers and were rewritten from lockfile and snapshots. */
  conflictedModule?: string[];
  /** The app's type-check after a breaking change (`typecheck`, `sync --typecheck`). */
  typecheck?: AppTypecheck;
  /** The pull-request body of what this sync changed (`report`, `sync --report`). */
  report?: PullRequestReport;
}

/** The pull-request report of one sync (src/sync/pull-request-report.ts). */
export interface PullRequestReport {
  /** `Update 3 prompts (1 breaking)`: the pull request's title and its commit message; empty when nothing changed. */
  title: string;
  /** The markdown body; empty when nothing changed. */
  body: string;
  /** Names of the prompts whose generated function breaks its callers. */
  breaking: string[];
  /** Names of every added, changed or removed prompt. */
  changed: string[];
}

/** A file `sync --frozen` wrote back from the service at the locked version: it was missing, or differed from the lockfile. */
export interface RestoredFile {
  name: string;
  version: string;
  /** The snapshot or context file (absolute). */
  file: string;
  reason: 'missing' | 'differed';
}

/** One finding of `check`: what is wrong (`code`), about what, in words, and how to fix it. */
export interface CheckProblem {
  code:
    | 'no-lockfile'
    | 'lockfile-invalid'
    | 'config-mismatch'
    | 'failed-commit'
    | 'pending-commit'
    | 'foreign-commit'
    | 'snapshot'
    | 'lock-mismatch'
    | 'context-file'
    | 'module-missing'
    | 'module-stale'
    | 'module-type-error'
    | 'module-unchecked'
    | 'orphan-snapshot'
    | 'unlocked-file'
    | 'remote-changed'
    | 'remote-not-locked'
    | 'remote-error';
  /** The prompt name, or the file (relative to the project), the problem is about. */
  subject: string;
  /** The problem, one sentence. */
  message: string;
  /** What to run or change, when there is one thing to do. */
  fix?: string;
}

export interface CheckResult {
  problems: CheckProblem[];
  checked: number;
  /** What each locked prompt reads as text, and hints that are no type: notes, not problems. */
  placeholders: PlaceholderNote[];
}
