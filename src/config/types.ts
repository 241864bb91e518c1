import type { Limits } from '../limits.js';
import type { OmittableField, PlaceholderOption } from './config-schema.js';

/** The options of `prompts.config.ts`. Every option's JSDoc is the config reference. */
export interface UserConfig {
  /**
   * Address of the prompt service. The environment variable `PROMPTLOCK_BASE_URL` overrides it.
   * Plain `http://` is allowed only for loopback addresses.
   * @default 'https://api.baytos.ai'
   */
  baseUrl?: string | undefined;
  /**
   * Which prompts to lock: exact names (`@acme/onboarding`), names with a selector
   * (`@acme/onboarding:v3`, `:latest`, `:draft`) and workspace globs (`@acme/*`, `@acme/*:draft`).
   * @default every prompt the service lists, at latest
   */
  prompts?: string[] | undefined;
  /** Workspace of list items the service names by a bare slug. Only needed when it does. */
  workspace?: string | undefined;
  /**
   * Folder of JSON snapshots (committed), relative to the config file.
   * @default 'prompts'
   */
  snapshots?: string | undefined;
  /**
   * The lockfile (committed), relative to the config file.
   * @default 'prompts.lock.json'
   */
  lockfile?: string | undefined;
  /**
   * The generated module, relative to the config file: a TypeScript file (`.ts`, `.mts`, `.cts`),
   * or for JavaScript projects a `.js`/`.mjs` file, written with its types beside it (`.d.ts`/`.d.mts`).
   * @default 'src/generated/prompts.ts'
   */
  output?: string | undefined;
  /**
   * Fields left out of every generated prompt object (and of its type), e.g. for a module bundled
   * into a browser app. Prompt texts that reach a browser are public: omit what must stay private.
   * @default []
   */
  omit?: OmittableField[] | undefined;
  /**
   * Requests in flight at once.
   * @default 16
   */
  concurrency?: number | undefined;
  /**
   * Seconds between polls of the service in watch mode.
   * @default 30
   */
  watchInterval?: number | undefined;
  /**
   * Download each file context item next to its snapshot (URL items are only recorded).
   * @default false
   */
  contextFiles?: boolean | undefined;
  /**
   * Timeout of one request, in milliseconds.
   * @default 30000
   */
  timeout?: number | undefined;
  /**
   * Hard limits on what is accepted from the service and the store; a service cannot raise them.
   * Each is a positive integer; see docs/security.md.
   * @default { promptBytes: 1000000, placeholders: 2000, jsonDepth: 64, listPages: 1000, listItems: 100000, responseBytes: 16777216, contextFileBytes: 104857600, totalBytes: 100000000, totalContextFileBytes: 536870912 }
   */
  limits?: { [name in keyof Limits]?: Limits[name] | undefined } | undefined;
  /**
   * How the placeholders of some prompts are read, by package name (`'@acme/ui'`) or workspace
   * glob (`'@acme/*'`; an exact name wins). By default a `{{…}}` is a variable only when the
   * placeholder grammar says so (README, "Placeholders"), and any other renders as written. Per
   * prompt: `{ text: ['end', 'item'] }` keeps the placeholders of those names as text too;
   * `'sdk'` reads every `{{…}}` as a variable, as the service's SDK does. Recorded in the lockfile
   * by `sync`.
   * @default {}
   */
  placeholders?: Record<string, PlaceholderOption | undefined> | undefined;
}

/** The config after defaults, environment overrides and path resolution. Paths are absolute. */
export interface ResolvedConfig {
  /** Absolute path of the config file (`loadConfig` fails when there is none). */
  configPath: string;
  /** The folder paths resolve against: the config file's folder. */
  rootDir: string;
  baseUrl: string;
  /** Entries as written; empty means every listed prompt at latest. */
  prompts: string[];
  workspace: string | undefined;
  snapshotsDir: string;
  lockfilePath: string;
  outputPath: string;
  /** Fields the module leaves out. */
  omit: OmittableField[];
  concurrency: number;
  watchInterval: number;
  contextFiles: boolean;
  timeout: number;
  /** Every limit, defaults applied. */
  limits: Limits;
  /** How some prompts' placeholders are read, by package name or workspace glob (`readingFor`). */
  placeholders: Record<string, PlaceholderOption | undefined>;
  /** From PROMPTLOCK_API_KEY, else BAYT_API_KEY. Never from a file. */
  apiKey: string | undefined;
  /** Where the key was read, as errors name it: `PROMPTLOCK_API_KEY in .env.local`. */
  apiKeySource?: string | undefined;
}
