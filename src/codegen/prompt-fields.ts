/**
 * The fields a generated function returns besides the three texts. They are checked against the
 * shape `RenderedPrompt` declares (templates/runtime.ts) here, so a damaged snapshot is reported by
 * name at generate time instead of surfacing as a type error inside the generated module.
 *
 * Checked by hand rather than with a schema library: this runs once per prompt, and for 10,000
 * prompts a schema parse was the largest cost of `generate` after the file reads.
 */
import { LockfileError } from '../errors.js';
import { PROMPT_FIELD_ORDER, type Prompt, TEXT_FIELDS, type TextField } from '../types.js';
import { sortKeysDeep } from '../util/sort-keys-deep.js';

/** Order of the returned object's keys: the service interface's (docs/service-interface.md), then any extra field sorted. */
const FIELD_ORDER = PROMPT_FIELD_ORDER;

const KNOWN: ReadonlySet<string> = new Set(FIELD_ORDER);
const TEXTS: ReadonlySet<string> = new Set<TextField>(TEXT_FIELDS);

type Check = (value: unknown) => boolean;
const isString: Check = (value) => typeof value === 'string';
const isNumber: Check = (value) => typeof value === 'number';
const isObject: Check = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const optional =
  (check: Check): Check =>
  (value) =>
    value === undefined || check(value);
const nullable =
  (check: Check): Check =>
  (value) =>
    value === undefined || value === null || check(value);

/** What each typed field must hold, as the message says it. */
const FIELDS: ReadonlyArray<[string, Check, string]> = [
  ['id', isString, 'a string'],
  ['title', isString, 'a string'],
  ['description', nullable(isString), 'a string or null'],
  ['category', nullable(isString), 'a string or null'],
  ['tags', optional((v) => Array.isArray(v) && v.every(isString)), 'an array of strings'],
  ['version', isString, 'a string'],
  ['workspaceSlug', optional(isString), 'a string'],
  ['packageName', isString, 'a string'],
  ['systemPrompt', nullable(isString), 'a string or null'],
  ['content', isString, 'a string'],
  ['critiquePrompt', nullable(isString), 'a string or null'],
  ['context', optional(Array.isArray), 'an array'],
  [
    'metadata',
    optional((v) => isObject(v) && optional(isNumber)((v as Record<string, unknown>).createdAt)),
    'an object with a numeric "createdAt"',
  ],
];

const CONTEXT_FIELDS: ReadonlyArray<[string, Check, string]> = [
  ['id', isString, 'a string'],
  ['type', (v) => v === 'file' || v === 'url', '"file" or "url"'],
  ['label', nullable(isString), 'a string or null'],
  ['createdAt', optional(isNumber), 'a number'],
  ['url', nullable(isString), 'a string or null'],
  ['urlFetchedAt', nullable(isNumber), 'a number or null'],
  ['fileName', nullable(isString), 'a string or null'],
  ['fileSize', nullable(isNumber), 'a number or null'],
  ['mimeType', nullable(isString), 'a string or null'],
];

function invalid(packageName: string, field: string, want: string): LockfileError {
  return new LockfileError(`Snapshot of ${packageName}: field "${field}" must be ${want}.`, {
    hint: 'Restore the snapshot from git, or run `promptlock sync` to fetch it again.',
  });
}

function checkShape(prompt: Prompt, packageName: string): void {
  for (const [field, check, want] of FIELDS) {
    if (!check(prompt[field])) throw invalid(packageName, field, want);
  }
  (prompt.context ?? []).forEach((item, index) => {
    if (!isObject(item)) throw invalid(packageName, `context.${index}`, 'an object');
    for (const [field, check, want] of CONTEXT_FIELDS) {
      if (!check((item as unknown as Record<string, unknown>)[field])) throw invalid(packageName, `context.${index}.${field}`, want);
    }
  });
}

/**
 * `[key, value]` for every returned field in order, texts as `undefined` (the caller compiles
 * them). Fields the service guarantees but a snapshot lacks get their empty value, so the returned
 * object always matches `RenderedPrompt`. Throws `LockfileError` naming the field that is wrong.
 */
export function promptFields(prompt: Prompt, packageName: string): Array<[string, unknown]> {
  checkShape(prompt, packageName);
  const defaults: Record<string, unknown> = {
    tags: [],
    workspaceSlug: packageName.slice(1, packageName.indexOf('/')),
    context: [],
    metadata: {},
  };
  const extra = Object.keys(prompt)
    .filter((key) => !KNOWN.has(key) && prompt[key] !== undefined)
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
