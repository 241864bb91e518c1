/**
 * What a valid prompt is, in one place: the grammar of every field promptlock takes from outside
 * (the service, a lockfile or snapshot edited in a pull request) and the limits on its size.
 * `validatePrompt` is the one prompt validator (sync, the snapshot decoder, live); the lockfile
 * decoder and the code generator use the patterns and name rules, so a value that reaches a
 * generated module has passed it, whichever way it came (docs/security.md).
 *
 * Grammar fields (version, ids, slugs, package names, variable names) are rejected when they do
 * not match; free text (titles, descriptions, texts, metadata) is kept as it came and escaped by
 * the code generator.
 */
import { DEFAULT_LIMITS, describeLimit, type LimitName, type Limits } from './limits.js';
import { isSlug, parseAnsweredName } from './package-name.js';
import { maskKey } from './secrets.js';
import { parseTemplate, variableNameRule } from './template/index.js';
import { type Prompt, TEXT_FIELDS } from './types.js';
import { describeValue } from './util/describe-value.js';

/** `v0` (the draft), `v1`…: at most 15 digits, so the number stays exact. */
export const VERSION_PATTERN = /^v\d{1,15}$/;
/** Prompt and context item ids: also file names of context files, so never `.` or `..`. */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * A context item id: also the key of its downloaded file in the lockfile's `files`, so never
 * `__proto__`, which as a key of an object literal or assignment sets the prototype instead.
 */
export function isContextItemId(id: string): boolean {
  return ID_PATTERN.test(id) && id !== '__proto__';
}

/**
 * Why a variable name recorded in a lockfile cannot be used, or undefined when it can: the rule
 * every reading of placeholders keeps (src/template/grammar.ts), since the name reaches generated
 * code as a property key and a runtime lookup.
 */
export function variableNameProblem(name: string): string | undefined {
  const rule = variableNameRule(name);
  return rule === undefined ? undefined : `${describeValue(name)} is not a variable name: ${rule}`;
}

/** A prompt that fails the grammar or a limit: which field, and why. */
export interface PromptProblem {
  /** `version`, `context[0].id`, `metadata.extra.deep`… */
  field: string;
  message: string;
  /** The limit that was exceeded, when it was one. */
  limit?: LimitName;
}

export interface ValidateOptions {
  limits?: Readonly<Limits> | undefined;
  /**
   * The shape only (the service client's check, retried like a 5xx when it fails): every field
   * present and of its type, no `"__proto__"` key, at any depth; the patterns, the limits and
   * the key are checked later (`fetchPrompt`), where the config is known.
   */
  shapeOnly?: boolean;
  /** The configured API key: a prompt holding it anywhere (an echoing service) is refused. */
  apiKey?: string | undefined;
}

function pathOf(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  const plain = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key);
  return parent ? `${parent}.${plain}` : plain;
}

/** A value met by `jsonProblem`'s walk: its path is spelled out only for a problem. */
interface JsonNode {
  value: unknown;
  parent: JsonNode | undefined;
  key: string | number;
  depth: number;
}

function pathOfNode(node: JsonNode, root: string): string {
  const keys: Array<string | number> = [];
  for (let at: JsonNode | undefined = node; at?.parent; at = at.parent) keys.push(at.key);
  return keys.reduceRight<string>((path, key) => pathOf(path, key), root);
}

/**
 * Walks any JSON value without recursion: depth within `jsonDepth`, no `__proto__` key (a
 * generated object literal would turn it into a prototype), no API key in any string or key.
 */
function jsonProblem(value: unknown, options: ValidateOptions = {}, root = ''): PromptProblem | undefined {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const key = options.apiKey && options.apiKey.length >= 8 ? options.apiKey : undefined;
  const problem = (node: JsonNode, message: string, limit?: LimitName): PromptProblem => ({
    field: pathOfNode(node, root) || '(root)',
    message,
    ...(limit ? { limit } : {}),
  });
  const keyProblem = (node: JsonNode) =>
    problem(node, `holds the API key (${maskKey(key!)}): the service echoed it back; refusing to write it into snapshots and code`);
  const stack: JsonNode[] = [{ value, parent: undefined, key: '', depth: 1 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value === 'string') {
      if (key && item.value.includes(key)) return keyProblem(item);
      continue;
    }
    if (typeof item.value === 'number' && !Number.isFinite(item.value)) return problem(item, 'must be a finite number');
    if (item.value === null || typeof item.value !== 'object') continue;
    if (item.depth > limits.jsonDepth) {
      return problem(item, `is nested deeper than the limit of ${describeLimit('jsonDepth', limits)}`, 'jsonDepth');
    }
    if (Array.isArray(item.value)) {
      const array = item.value;
      for (let i = array.length - 1; i >= 0; i--) stack.push({ value: array[i], parent: item, key: i, depth: item.depth + 1 });
      continue;
    }
    const record = item.value as Record<string, unknown>;
    const keys = Object.keys(record);
    for (let i = keys.length - 1; i >= 0; i--) {
      const name = keys[i]!;
      const node: JsonNode = { value: record[name], parent: item, key: name, depth: item.depth + 1 };
      if (name === '__proto__') {
        return problem(node, 'the key "__proto__" is not allowed (it would set the prototype of generated objects)');
      }
      if (key && name.includes(key)) return keyProblem(node);
      stack.push(node);
    }
  }
  return undefined;
}

/**
 * A field's problem, or undefined; with `shapeOnly`, a string's pattern is not checked. The checks
 * below serve the lockfile's decoder too (store/lockfile-format.ts).
 */
export type Check = (value: unknown, shapeOnly?: boolean) => string | undefined;
export const string: Check = (v) => (typeof v === 'string' ? undefined : 'must be a string');
const nullableString: Check = (v) => (v === undefined || v === null || typeof v === 'string' ? undefined : 'must be a string or null');
const finite: Check = (v) => (typeof v === 'number' && Number.isFinite(v) ? undefined : 'must be a finite number');
const optionalFinite: Check = (v) => (v === undefined ? undefined : finite(v));
export const object: Check = (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? undefined : 'must be an object');
const nullableFinite: Check = (v) => (v === undefined || v === null ? undefined : finite(v));
export const matches =
  (test: (v: string) => boolean, want: string): Check =>
  (v, shapeOnly) =>
    typeof v === 'string' && (shapeOnly || test(v)) ? undefined : `${describeValue(v)} must be ${want}`;

/** Every field of a prompt and of a context item: required unless its check accepts `undefined`. */
const PROMPT_FIELDS: ReadonlyArray<[string, Check]> = [
  ['id', matches((v) => ID_PATTERN.test(v), 'an id (1 to 128 of A-Z a-z 0-9 _ -)')],
  ['title', string],
  ['description', nullableString],
  ['category', nullableString],
  ['tags', (v) => (Array.isArray(v) && v.every((t) => typeof t === 'string') ? undefined : 'must be an array of strings')],
  ['version', matches((v) => VERSION_PATTERN.test(v), 'a version: "v" and digits ("v0" is the draft)')],
  ['workspaceSlug', matches(isSlug, 'a workspace slug (a-z 0-9 -)')],
  [
    'packageName',
    matches((v) => parseAnsweredName(v) !== undefined, 'a package name like "@workspace/package:v1", or a bare slug like "package"'),
  ],
  ['systemPrompt', nullableString],
  ['content', string],
  ['critiquePrompt', nullableString],
  ['context', (v) => (Array.isArray(v) ? undefined : 'must be an array')],
  ['metadata', object],
];

const CONTEXT_FIELDS: ReadonlyArray<[string, Check]> = [
  ['id', matches(isContextItemId, 'a context item id (1 to 128 of A-Z a-z 0-9 _ -, not "__proto__")')],
  ['type', (v) => (v === 'file' || v === 'url' ? undefined : `${describeValue(v)} must be "file" or "url"`)],
  ['label', nullableString],
  ['createdAt', finite],
  ['url', nullableString],
  ['urlFetchedAt', nullableFinite],
  ['fileName', nullableString],
  [
    'fileSize',
    (v, shapeOnly) =>
      v === undefined || v === null || (shapeOnly ? typeof v === 'number' : Number.isSafeInteger(v) && (v as number) >= 0)
        ? undefined
        : 'must be a whole number of bytes or null',
  ],
  ['mimeType', nullableString],
];

/** A field's problem: `is missing` when it is absent, else what its check says. */
function fieldProblem(field: string, check: Check, value: unknown, shapeOnly?: boolean): PromptProblem | undefined {
  const message = check(value, shapeOnly);
  return message ? { field, message: value === undefined ? 'is missing' : message } : undefined;
}

/** The problem of the fields, in the order of the tables: shape and grammar in one pass. */
function fieldsProblem(record: Record<string, unknown>, shapeOnly: boolean): PromptProblem | undefined {
  for (const [field, check] of PROMPT_FIELDS) {
    const problem = fieldProblem(field, check, record[field], shapeOnly);
    if (problem) return problem;
  }
  const context = record.context as unknown[];
  for (let i = 0; i < context.length; i++) {
    const item = context[i];
    const problem = fieldProblem(`context[${i}]`, object, item);
    if (problem) return problem;
    for (const [field, check] of CONTEXT_FIELDS) {
      const problem = fieldProblem(`context[${i}].${field}`, check, (item as Record<string, unknown>)[field], shapeOnly);
      if (problem) return problem;
    }
  }
  const metadata = record.metadata as Record<string, unknown>;
  return (
    fieldProblem('metadata.createdAt', finite, metadata.createdAt) ??
    fieldProblem('metadata.generatedAt', optionalFinite, metadata.generatedAt)
  );
}

/**
 * The size in bytes and the number of placeholders. Which placeholders are variables, and so which
 * names must be usable ones, depends on how the prompt is read (the config's `placeholders`):
 * that is checked where the variables are listed (src/template/list-variables.ts).
 */
function sizeProblem(record: Record<string, unknown>, limits: Readonly<Limits>): PromptProblem | undefined {
  const bytes = Buffer.byteLength(JSON.stringify(record));
  if (bytes > limits.promptBytes) {
    return {
      field: '(whole prompt)',
      message: `is ${bytes} bytes, over the limit of ${describeLimit('promptBytes', limits)}`,
      limit: 'promptBytes',
    };
  }
  let placeholders = 0;
  for (const field of TEXT_FIELDS) {
    const text = record[field];
    if (typeof text !== 'string') continue;
    for (const segment of parseTemplate(text)) {
      if (segment.kind !== 'placeholder') continue;
      if (++placeholders > limits.placeholders) {
        return {
          field: '(all texts)',
          message: `have more {{placeholders}} than the limit of ${describeLimit('placeholders', limits)}`,
          limit: 'placeholders',
        };
      }
    }
  }
  return undefined;
}

const ANY_DEPTH: Readonly<Limits> = { ...DEFAULT_LIMITS, jsonDepth: Number.MAX_SAFE_INTEGER };

export type PromptCheck = { ok: true; prompt: Prompt } | { ok: false; problem: PromptProblem };

/**
 * The one prompt validator: unknown JSON (a service answer, a snapshot, a live or fleet-store
 * answer) becomes a `Prompt`, or the first problem naming its field. JSON depth and keys first (so
 * nothing below recurses into a hostile value), then the shape and grammar of every field (the
 * tables above: which fields are required, what each holds), then the size in bytes and the
 * placeholders. The service interface (docs/service-interface.md) lists `tags`, `workspaceSlug`,
 * `context`, `metadata` (with `createdAt`) and each context item's `createdAt` as not nullable:
 * they are required; only `description`, `category` and the two optional texts may be absent.
 * What passes is trusted downstream: codegen and live read the fields as typed.
 */
export function validatePrompt(value: unknown, options: ValidateOptions = {}): PromptCheck {
  const record = value as Record<string, unknown>;
  const shapeOnly = options.shapeOnly === true;
  const problem =
    jsonProblem(value, shapeOnly ? { limits: ANY_DEPTH } : options) ??
    (object(value) ? { field: '(root)', message: 'must be an object' } : undefined) ??
    fieldsProblem(record, shapeOnly) ??
    (shapeOnly ? undefined : sizeProblem(record, options.limits ?? DEFAULT_LIMITS));
  return problem ? { ok: false, problem } : { ok: true, prompt: value as Prompt };
}

/** A problem as messages say it: `field "version" "v1 *…" must be a version…`. */
export function describeProblem(problem: PromptProblem): string {
  return `field ${problem.field.startsWith('(') ? problem.field : `"${problem.field}"`} ${problem.message}`;
}

// Export names of generated functions (src/codegen/naming.ts): they reach code as they are.

/** The globals templates/runtime.ts uses (a test holds this list to the file). */
export const RUNTIME_GLOBALS: readonly string[] = ['Object', 'JSON', 'String', 'TypeError'];

/** Words that cannot name a function declaration in an ES module (strict mode) or a TS module. */
export const RESERVED: ReadonlySet<string> = new Set([
  // ECMAScript reserved words, including the strict-mode and module-only ones.
  ...'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await'.split(
    ' ',
  ),
  // Not reserved, but not declarable in strict code or clashing with globals TypeScript guards.
  ...'arguments eval undefined globalThis require exports module'.split(' '),
  // An export named `then` makes the module a thenable: `await import()` would call it.
  'then',
  // The globals the runtime (templates/runtime.ts) calls: a function of that name would shadow them.
  ...RUNTIME_GLOBALS,
]);

/** Names the generated module declares itself (its runtime helper starts with `$`, which no export name may). */
export const MODULE_NAMES: ReadonlySet<string> = new Set([
  'prompts',
  'PromptName',
  'RenderedPrompt',
  'RenderedPromptContextItem',
  'PromptProvenance',
]);

/** Why a recorded export name cannot be used (it reaches code as it is), or undefined when it can. */
export function exportNameProblem(name: string): string | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    return 'must be an identifier of letters, digits and _, not starting with a digit ($ is kept for the runtime of the module)';
  }
  if (name === 'then') return 'is reserved: a module exporting "then" is a thenable, which `await import()` would call';
  if (RUNTIME_GLOBALS.includes(name)) return 'is a global the runtime of the module uses';
  if (RESERVED.has(name)) return 'is a reserved word';
  if (MODULE_NAMES.has(name)) return 'is a name the module declares itself';
  if (name.length > 200) return 'is longer than 200 characters';
  return undefined;
}
