/**
 * One prompt → one exported function, in one shape for every prompt (README, "The generated
 * module"): its JSDoc, a typed `variables` parameter (none when the prompt has no variables), one
 * checked read of the variables into locals named after them, and the returned object, written as
 * the service's prompt object with each text one template literal and its variables inline:
 *
 *     export function welcome(variables: { user: string }): RenderedPrompt {
 *       const [user] = $readVariables("@acme/welcome", variables, ["user"]);
 *       return { …, content: `Hello ${user}!`, … };
 *     }
 *
 * A template literal is one token however many lines it has, so the type checker's work grows with
 * neither the lines nor the placeholders of a text. As TypeScript, as JavaScript, or as its
 * declaration for a `.d.ts` file.
 */

import { RESERVED } from '../prompt-grammar.js';
import type { LockEntry } from '../store/lockfile-format.js';
import { listVariables, parseTemplate, type Segment, type Variable, type VariableType } from '../template/index.js';
import { PROMPT_FIELD_ORDER, type Prompt, promptTexts } from '../types.js';
import { docText, propertyKey, stringLiteral, templateText, valueLiteral } from './escape.js';
import type { OmittableField } from './module-format.js';
import { promptFields } from './prompt-fields.js';

/** One prompt to generate: its base package name, lock entry and decoded snapshot. */
export interface CodegenPrompt {
  /** Base package name, `@ws/pkg`. */
  name: string;
  entry: LockEntry;
  prompt: Prompt;
}

/** The service interface's fields (docs/service-interface.md): a module that omits some carries only these (see runtime-source.ts). */
const FIELD_ORDER_SET: ReadonlySet<string> = new Set(PROMPT_FIELD_ORDER);

/** The runtime helper every function with variables calls (templates/runtime.ts). */
const READ_VARIABLES = '$readVariables';

/** The type map of docs/service-interface.md (Variables); unknown hints were already typed `string` by the template module. */
const TS_TYPES: Readonly<Record<VariableType, string>> = {
  string: 'string',
  number: 'number',
  boolean: 'boolean',
  array: 'unknown[]',
  object: 'Record<string, unknown>',
};

/**
 * `/** Support reply (@acme/support-reply:v3): Answers a customer ticket *\/`. In ASCII: one
 * character past Latin-1 makes the engine hold the whole module text at two bytes a character.
 */
function functionDoc({ name, entry, prompt }: CodegenPrompt): string {
  // Every text that reaches a comment goes through docText, grammar-checked fields too.
  const title = docText(prompt.title);
  const version = docText(`${name}:${entry.version}`);
  const head = title ? `${title} (${version})` : version;
  const description = prompt.description ? docText(prompt.description) : '';
  return `/** ${description ? `${head}: ${description}` : head} */`;
}

function parameter(variables: readonly Variable[]): string {
  if (variables.length === 0) return '';
  const lines = ['variables: {'];
  for (const variable of variables) {
    if (variable.description) lines.push(`  /** ${docText(variable.description)} */`);
    lines.push(`  ${propertyKey(variable.name)}: ${TS_TYPES[variable.type]};`);
  }
  lines.push('}');
  return lines.join('\n');
}

/** What a function is emitted as (`cts`: TypeScript, exported by the module's `export =`) and which fields it leaves out. */
export interface FunctionOptions {
  file: 'ts' | 'cts' | 'js' | 'dts';
  omit: readonly OmittableField[];
}

/**
 * The local each variable is read into: its name where that is a plain identifier, else its
 * letters, digits and `_` (`first name` → `first_name`); a leading digit gets `_`, a reserved
 * word, `variables` (the parameter) or a name taken by an earlier variable a number suffix.
 * Deterministic: the variables' order decides.
 */
export function localNames(variables: readonly string[]): Map<string, string> {
  const taken = new Set<string>(['variables']);
  const out = new Map<string, string>();
  for (const name of variables) {
    let base = name.replace(/[^A-Za-z0-9_]+/g, '_') || '_';
    if (/^[0-9]/.test(base)) base = `_${base}`;
    let local = base;
    for (let n = 2; taken.has(local) || RESERVED.has(local); n++) local = `${base}${n}`;
    taken.add(local);
    out.set(name, local);
  }
  return out;
}

/**
 * A text as one template literal, each placeholder of a variable its local. A placeholder whose
 * name is no variable of the prompt is text, written exactly as it stands (README, "Placeholders").
 */
function textLiteral(segments: readonly Segment[], locals: ReadonlyMap<string, string>): string {
  let out = '`';
  // Text is escaped a run at a time: a `$` before a `{{…}}` kept as text must see its brace.
  let run = '';
  for (const segment of segments) {
    const local = segment.kind === 'placeholder' ? locals.get(segment.name) : undefined;
    if (local === undefined) {
      run += segment.kind === 'text' ? segment.text : segment.raw;
      continue;
    }
    out += `${templateText(run)}\${${local}}`;
    run = '';
  }
  return `${out}${templateText(run)}\``;
}

/**
 * A returned field's value. An array of objects (the context items) is written one item per line,
 * so a pull request that changes one item changes one line of the module, and two that change
 * different items merge (docs/architecture.md, "The module merges").
 */
function fieldLiteral(value: unknown): string {
  const items = Array.isArray(value) && value.length > 0 && value.every((item) => item !== null && typeof item === 'object');
  if (!items) return valueLiteral(value);
  return `[\n${(value as unknown[]).map((item) => `      ${valueLiteral(item)},\n`).join('')}    ]`;
}

/** A function's source. */
export interface FunctionSource {
  source: string;
  /** Whether it calls `$readVariables`. */
  readsVariables: boolean;
}

/** The source of the exported function `functionName` for one prompt. */
export function promptToFunction(
  item: CodegenPrompt,
  functionName: string,
  options: FunctionOptions = { file: 'ts', omit: [] },
): FunctionSource {
  const { name, prompt } = item;
  const { file, omit } = options;
  // Every variable of every text, omitted texts too: the function's signature is the prompt's
  // contract (the lockfile's variables), the same in a server module and a browser one.
  const segments = new Map<string, Segment[]>();
  const texts = promptTexts(prompt).map(({ label, text }) => {
    if (typeof text !== 'string') return { label, text };
    const parsed = parseTemplate(text);
    segments.set(label, parsed);
    return { label, text, segments: parsed };
  });
  // Read as the lock entry records (the config's `placeholders` when it was synced).
  const variables = listVariables(texts, name, item.entry.placeholders);
  const doc = functionDoc(item);
  if (file === 'dts') {
    return { source: `${doc}\nexport declare function ${functionName}(${parameter(variables)}): RenderedPrompt;`, readsVariables: false };
  }
  const omitted = new Set<string>(omit);
  const fields =
    omit.length === 0 ? promptFields(prompt) : promptFields(prompt).filter(([key]) => !omitted.has(key) && FIELD_ORDER_SET.has(key));
  const signature =
    file === 'ts' || file === 'cts'
      ? `${functionName}(${parameter(variables)}): RenderedPrompt`
      : `${functionName}(${variables.length > 0 ? 'variables' : ''})`;
  const locals = localNames(variables.map((variable) => variable.name));
  const used = new Set<string>();
  const body: string[] = [];
  for (const [key, value] of fields) {
    const text = value === undefined ? segments.get(key) : undefined;
    if (value !== undefined || text === undefined) {
      body.push(`    ${propertyKey(key)}: ${fieldLiteral(value ?? null)},`);
      continue;
    }
    for (const segment of text) if (segment.kind === 'placeholder' && locals.has(segment.name)) used.add(segment.name);
    body.push(`    ${key}: ${textLiteral(text, locals)},`);
  }
  const lines = [doc, `${file === 'cts' ? '' : 'export '}function ${signature} {`];
  if (variables.length > 0) {
    // Every variable is read, used by an emitted text or not (a field omitted), so a call missing
    // one fails in every module alike; only those a text uses get a local (no unused locals).
    const pattern = variables.map((variable) => (used.has(variable.name) ? locals.get(variable.name)! : '')).join(', ');
    const read = `${READ_VARIABLES}(${stringLiteral(name)}, variables, [${variables.map((variable) => stringLiteral(variable.name)).join(', ')}]);`;
    lines.push(used.size > 0 ? `  const [${pattern.replace(/(, )+$/, '')}] = ${read}` : `  ${read}`);
  }
  // Which reviewed text this is (docs/traces.md): the prompt's own data, in its own function, so a
  // bundle of one prompt carries only its own, and the line changes only with the prompt.
  const { version, integrity } = item.entry;
  body.push(
    `    provenance: { name: ${stringLiteral(name)}, version: ${stringLiteral(version)}, integrity: ${stringLiteral(integrity)}, source: "snapshot" },`,
  );
  lines.push('  return {', ...body, '  };', '}');
  return { source: lines.join('\n'), readsVariables: variables.length > 0 };
}
