import * as z from 'zod';
import { DEFAULT_LIMITS, LIMIT_NAMES, type LimitName } from '../limits.js';
import { BASE_URL_ALLOWED, baseUrlProblem, DEFAULT_BASE_URL } from './base-url.js';
import { CLIENT_DEFAULTS } from './client-defaults.js';
import { PROMPT_ENTRY_ALLOWED, promptEntryProblems } from './prompt-entry.js';

/** Fields of a generated prompt that the `omit` option may leave out of the module. */
export const OMITTABLE_FIELDS = ['systemPrompt', 'critiquePrompt', 'context', 'metadata'] as const;
export type OmittableField = (typeof OMITTABLE_FIELDS)[number];

/**
 * What each option accepts, in the words of `Invalid value for option "…": expected <allowed>`.
 * Kept next to the schema so the two cannot drift apart.
 */
export const OPTION_ALLOWED = {
  baseUrl: BASE_URL_ALLOWED,
  prompts: `an array of package names or workspace globs (${PROMPT_ENTRY_ALLOWED})`,
  workspace: 'a workspace slug (lower-case letters, digits and hyphens)',
  snapshots: 'a folder path, relative to the config file',
  lockfile: 'a file path, relative to the config file',
  output: 'a .ts, .mts, .cts, .js or .mjs file path, relative to the config file',
  omit: `an array of field names to leave out of the module (${OMITTABLE_FIELDS.map((field) => JSON.stringify(field)).join(', ')})`,
  concurrency: 'an integer from 1 to 256',
  watchInterval: 'a number of seconds from 0.1 to 86400',
  contextFiles: 'true or false',
  timeout: 'an integer number of milliseconds from 1 to 3600000',
  limits: `an object of positive integers (${LIMIT_NAMES.join(', ')})`,
  placeholders:
    'an object from package names ("@workspace/package") or workspace globs ("@workspace/*") to "sdk" or { text: [placeholder names] }',
} as const;

export type OptionName = keyof typeof OPTION_ALLOWED;
export const OPTION_NAMES = Object.keys(OPTION_ALLOWED) as OptionName[];

const path = z.string().trim().min(1);

/** How one prompt's placeholders are read (README, "Placeholders"): every `{{…}}` as the SDK reads them, or some names kept as text. */
const placeholderReading = z.union([
  z.literal('sdk'),
  z.strictObject({
    text: z
      .array(
        z
          .string()
          .min(1)
          .regex(/^[^{}]*$/),
      )
      .min(1),
  }),
]);
/** The reading of src/template/ (`PlaceholderReading`), as the config writes it. */
export type PlaceholderOption = z.output<typeof placeholderReading>;

/**
 * `prompts`: each entry is checked by `promptEntryProblems`, whose messages name the entry (a
 * number or an object too), so the array takes anything and the refinement judges it; its type is
 * what it accepts, strings.
 */
const promptEntries = z.array(z.unknown()).superRefine((entries, ctx) => {
  for (const problem of promptEntryProblems(entries)) {
    // `entry` marks a message that is complete on its own (not "expected …, got …").
    ctx.addIssue({ code: 'custom', path: [problem.index], message: problem.message, params: { entry: true } });
  }
}) as unknown as z.ZodType<string[], string[]>;

/**
 * The options of the config file: the one source of their schemas, their defaults (each
 * `.default` here) and their types (`UserConfig` is the schema's input, src/config/types.ts). The
 * JSDoc of each option is the config reference (a named object, so the built declarations keep it
 * for editors); its `@default` says the default in words, and test/config/defaults.test.ts ties
 * it, and the README's table, to the `.default` beside it.
 */
export const configShape = {
  /**
   * Address of the prompt service. The environment variable `PROMPTLOCK_BASE_URL` overrides it.
   * Plain `http://` is allowed only for loopback addresses.
   * @default 'https://api.baytos.ai'
   */
  baseUrl: z
    .string()
    .superRefine((value, ctx) => {
      const problem = baseUrlProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .default(DEFAULT_BASE_URL),
  /**
   * Which prompts to lock: exact names (`@acme/onboarding`), names with a selector
   * (`@acme/onboarding:v3`, `:latest`, `:draft`) and workspace globs (`@acme/*`, `@acme/*:draft`).
   * @default every prompt the service lists, at latest
   */
  prompts: promptEntries.default([]),
  /** Workspace of list items the service names by a bare slug. Only needed when it does. */
  workspace: z
    .string()
    .regex(/^[a-z0-9-]+$/)
    .optional(),
  /**
   * Folder of JSON snapshots (committed), relative to the config file.
   * @default 'prompts'
   */
  snapshots: path.default('prompts'),
  /**
   * The lockfile (committed), relative to the config file.
   * @default 'prompts.lock.json'
   */
  lockfile: path.default('prompts.lock.json'),
  /**
   * The generated module, relative to the config file: a TypeScript file (`.ts`, `.mts`, `.cts`),
   * or for JavaScript projects a `.js`/`.mjs` file, written with its types beside it (`.d.ts`/`.d.mts`).
   * @default 'src/generated/prompts.ts'
   */
  // Not `.d.ts`: that is the declaration file a `.js` output gets beside it.
  output: path.regex(/^(?![\s\S]*\.d\.[mc]?ts$)[\s\S]*\.(ts|mts|cts|js|mjs)$/).default('src/generated/prompts.ts'),
  /**
   * Fields left out of every generated prompt object (and of its type), e.g. for a module bundled
   * into a browser app. Prompt texts that reach a browser are public: omit what must stay private.
   * @default []
   */
  omit: z.array(z.enum(OMITTABLE_FIELDS)).default([]),
  /**
   * Requests in flight at once.
   * @default 16
   */
  concurrency: z.number().int().min(1).max(256).default(CLIENT_DEFAULTS.concurrency),
  /**
   * Seconds between polls of the service in watch mode.
   * @default 30
   */
  watchInterval: z.number().min(0.1).max(86_400).default(30),
  /**
   * Download each file context item next to its snapshot (URL items are only recorded).
   * @default false
   */
  contextFiles: z.boolean().default(false),
  /**
   * Timeout of one request, in milliseconds.
   * @default 30000
   */
  timeout: z.number().int().min(1).max(3_600_000).default(CLIENT_DEFAULTS.timeoutMs),
  /**
   * Hard limits on what is accepted from the service and the store; a service cannot raise them.
   * Each is a positive integer; see docs/security.md.
   * @default { promptBytes: 1000000, placeholders: 2000, jsonDepth: 64, listPages: 1000, listItems: 100000, listBytes: 134217728, responseBytes: 16777216, contextFileBytes: 104857600, totalBytes: 100000000, totalContextFileBytes: 536870912, runSeconds: 3600 }
   */
  limits: z
    .strictObject(
      Object.fromEntries(
        LIMIT_NAMES.map((name) => [name, z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(DEFAULT_LIMITS[name])]),
      ) as Record<LimitName, z.ZodDefault<z.ZodNumber>>,
    )
    .default({ ...DEFAULT_LIMITS }),
  /**
   * How the placeholders of some prompts are read, by package name (`'@acme/ui'`) or workspace
   * glob (`'@acme/*'`; an exact name wins). By default a `{{…}}` is a variable only when the
   * placeholder grammar says so (README, "Placeholders"), and any other renders as written. Per
   * prompt: `{ text: ['end', 'item'] }` keeps the placeholders of those names as text too;
   * `'sdk'` reads every `{{…}}` as a variable, as the service's SDK does. Recorded in the lockfile
   * by `sync`.
   * @default {}
   */
  placeholders: z.record(z.string().regex(/^@[a-z0-9-]+\/(?:[a-z0-9-]+|\*)$/), placeholderReading.optional()).default({}),
};

/** The config file's schema. Strict, so a typo is reported instead of silently ignored. */
export const configSchema: z.ZodObject<typeof configShape, z.core.$strict> = z.strictObject(configShape);

export type ParsedConfig = z.output<typeof configSchema>;
