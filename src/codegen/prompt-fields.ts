/**
 * The fields a generated function returns besides the three texts. They are checked against the
 * shape `RenderedPrompt` declares (templates/runtime.ts) here, so a damaged snapshot is reported by
 * name at generate time instead of surfacing as a type error inside the generated module.
 */
import { z } from 'zod';
import { LockfileError } from '../errors.js';
import type { Prompt, TextField } from '../types.js';

const optionalText = z.string().nullable().optional();
const optionalNumber = z.number().nullable().optional();

const fieldsSchema = z.looseObject({
  id: z.string(),
  title: z.string(),
  description: optionalText,
  category: optionalText,
  tags: z.array(z.string()).optional(),
  version: z.string(),
  workspaceSlug: z.string().optional(),
  packageName: z.string(),
  systemPrompt: optionalText,
  content: z.string(),
  critiquePrompt: optionalText,
  context: z
    .array(
      z.looseObject({
        id: z.string(),
        type: z.enum(['file', 'url']),
        label: optionalText,
        createdAt: z.number().optional(),
        url: optionalText,
        urlFetchedAt: optionalNumber,
        fileName: optionalText,
        fileSize: optionalNumber,
        mimeType: optionalText,
      }),
    )
    .optional(),
  metadata: z.looseObject({ createdAt: z.number().optional() }).optional(),
});

/** Order of the returned object's keys: the spec's, then any extra field sorted. */
export const FIELD_ORDER = [
  'id',
  'title',
  'description',
  'category',
  'tags',
  'version',
  'workspaceSlug',
  'packageName',
  'systemPrompt',
  'content',
  'critiquePrompt',
  'context',
  'metadata',
] as const;

const TEXTS: ReadonlySet<string> = new Set<TextField>(['content', 'systemPrompt', 'critiquePrompt']);

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeysDeep((value as Record<string, unknown>)[key]);
  return out;
}

/**
 * `[key, value]` for every returned field in order, texts as `undefined` (the caller compiles
 * them). Fields the service guarantees but a snapshot lacks get their empty value, so the returned
 * object always matches `RenderedPrompt`.
 */
export function promptFields(prompt: Prompt, packageName: string): Array<[string, unknown]> {
  const result = fieldsSchema.safeParse(prompt);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new LockfileError(
      `Snapshot of ${packageName}: field "${issue.path.map(String).join('.')}" is invalid: ${issue.message}.`,
      { hint: 'Restore the snapshot from git, or run `promptlock sync` to fetch it again.' },
    );
  }
  const defaults: Record<string, unknown> = {
    tags: [],
    workspaceSlug: packageName.slice(1, packageName.indexOf('/')),
    context: [],
    metadata: {},
  };
  const known: readonly string[] = FIELD_ORDER;
  const extra = Object.keys(prompt)
    .filter((key) => !known.includes(key) && prompt[key] !== undefined)
    .sort();
  const out: Array<[string, unknown]> = [];
  for (const key of [...FIELD_ORDER, ...extra]) {
    if (TEXTS.has(key)) {
      out.push([key, undefined]);
      continue;
    }
    let value = prompt[key] === undefined ? defaults[key] : prompt[key];
    if (value === undefined) continue;
    if (key === 'metadata') {
      // Changes on every response; snapshots drop it and so does the module.
      const { generatedAt: _volatile, ...rest } = value as Record<string, unknown>;
      value = rest;
    }
    out.push([key, sortKeysDeep(value)]);
  }
  return out;
}
