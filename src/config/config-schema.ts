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
 * The config file's schema, with the defaults documented on `UserConfig`. Strict, so a typo
 * is reported instead of silently ignored.
 */
export const configSchema = z.strictObject({
  baseUrl: z
    .string()
    .superRefine((value, ctx) => {
      const problem = baseUrlProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .default(DEFAULT_BASE_URL),
  prompts: z
    .array(z.unknown())
    .superRefine((entries, ctx) => {
      for (const problem of promptEntryProblems(entries)) {
        // `entry` marks a message that is complete on its own (not "expected …, got …").
        ctx.addIssue({ code: 'custom', path: [problem.index], message: problem.message, params: { entry: true } });
      }
    })
    .default([]),
  workspace: z
    .string()
    .regex(/^[a-z0-9-]+$/)
    .optional(),
  snapshots: path.default('prompts'),
  lockfile: path.default('prompts.lock.json'),
  // Not `.d.ts`: that is the declaration file a `.js` output gets beside it.
  output: path.regex(/^(?![\s\S]*\.d\.[mc]?ts$)[\s\S]*\.(ts|mts|cts|js|mjs)$/).default('src/generated/prompts.ts'),
  omit: z.array(z.enum(OMITTABLE_FIELDS)).default([]),
  concurrency: z.number().int().min(1).max(256).default(CLIENT_DEFAULTS.concurrency),
  watchInterval: z.number().min(0.1).max(86_400).default(30),
  contextFiles: z.boolean().default(false),
  timeout: z.number().int().min(1).max(3_600_000).default(CLIENT_DEFAULTS.timeoutMs),
  limits: z
    .strictObject(
      Object.fromEntries(
        LIMIT_NAMES.map((name) => [name, z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(DEFAULT_LIMITS[name])]),
      ) as Record<LimitName, z.ZodDefault<z.ZodNumber>>,
    )
    .default({ ...DEFAULT_LIMITS }),
  placeholders: z.record(z.string().regex(/^@[a-z0-9-]+\/(?:[a-z0-9-]+|\*)$/), placeholderReading.optional()).default({}),
});

export type ParsedConfig = z.output<typeof configSchema>;
