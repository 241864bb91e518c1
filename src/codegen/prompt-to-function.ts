/**
 * One prompt → one exported function: JSDoc, a typed `variables` parameter (none when the prompt
 * has no variables), the presence check, and the returned object with its texts precompiled.
 * As TypeScript, as JavaScript, or as its declaration for a `.d.ts` file.
 */

import type { LockEntry } from '../store/lockfile-format.js';
import { listVariables, type Variable, type VariableType } from '../template/index.js';
import { PROMPT_FIELD_ORDER, type Prompt, promptTexts } from '../types.js';
import { compileText, DIRECT_PLACEHOLDERS, type ParsedText, parseText } from './compile-text.js';
import { docText, jsonLiteral, propertyKey, stringLiteral } from './escape.js';
import type { OmittableField } from './module-format.js';
import { promptFields } from './prompt-fields.js';
import type { HelperUse } from './runtime-source.js';

/** One prompt to generate: its base package name, lock entry and decoded snapshot. */
export interface CodegenPrompt {
  /** Base package name, `@ws/pkg`. */
  name: string;
  entry: LockEntry;
  prompt: Prompt;
}

/** The service interface's fields (docs/service-interface.md): a module that omits some carries only these (see runtime-source.ts). */
const FIELD_ORDER_SET: ReadonlySet<string> = new Set(PROMPT_FIELD_ORDER);

/** The type map of docs/service-interface.md (Variables); unknown hints were already typed `string` by the template module. */
const TS_TYPES: Readonly<Record<VariableType, string>> = {
  string: 'string',
  number: 'number',
  boolean: 'boolean',
  array: 'unknown[]',
  object: 'Record<string, unknown>',
};

function functionDoc({ name, entry, prompt }: CodegenPrompt): string {
  // Every text that reaches a comment goes through docText, grammar-checked fields too.
  const head = [docText(prompt.title), docText(`${name}:${entry.version}`)].filter(Boolean).join(' · ');
  const description = prompt.description ? docText(prompt.description) : '';
  return `/** ${description ? `${head} — ${description}` : head} */`;
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

/** What a function is emitted as and which fields it leaves out. */
export interface FunctionOptions {
  file: 'ts' | 'js' | 'dts';
  omit: readonly OmittableField[];
  /**
   * What the names of the function's constants start with (`constantPrefix`): `$` unless an export
   * name of the module itself starts with `$`.
   */
  prefix?: string;
}

/**
 * The start of every constant's name in a module whose export names are `names`: more `$` than
 * any of them starts with. A constant is `<prefix><field>$<functionName>`, so it can meet no export
 * name (fewer leading `$`), no runtime helper (one `$`, no second) and no other constant (the
 * field part has no `$`, so the name decodes into one field and one function).
 */
export function constantPrefix(names: Iterable<string>): string {
  let most = 0;
  for (const name of names) most = Math.max(most, /^\$*/.exec(name)![0].length);
  return '$'.repeat(most + 1);
}

/** A function's source and the runtime helpers it calls. */
export interface FunctionSource extends HelperUse {
  source: string;
}

/** `variables.name`, or `variables["odd name"]` when the name is not an identifier. */
function member(object: string, name: string): string {
  const key = propertyKey(name);
  return key === name ? `${object}.${name}` : `${object}[${key}]`;
}

/**
 * The fast read of variable `i` as text (`prompt`: the package name as a string literal): a string
 * that is the plain object's own property is used as it is; anything else (not a plain object, a
 * value of another type, a name `Object.prototype` has) goes through `$value`, which checks and
 * converts it, or throws naming what is missing. Inline rather than a helper call: with a helper
 * the bench's short prompts rendered 8.2 M calls/s, inline 12.9 M (the engine folds
 * `$proto[key] === undefined` to a constant only where the key is written out).
 */
function readVariable(prompt: string, name: string, i: number): string {
  const own = member('variables', name);
  const key = stringLiteral(name);
  return `  const v${i} = p && $proto[${key}] === undefined && typeof ${own} === "string" ? ${own} : $value(${prompt}, variables, ${key});`;
}

/**
 * The source of the exported function `functionName` for one prompt.
 *
 * Shape of a call, fastest first (measured: the bench's render scenario): the fields that are
 * arrays or objects are module-level constants, deeply frozen and shared by every call, each
 * named `$<field>$<functionName>` (see `constantPrefix`), or the shared `$empty` for an empty
 * array; a call allocates only the returned object and its rendered texts. A prompt with at most
 * `DIRECT_PLACEHOLDERS` placeholders reads each variable into a local and concatenates its texts
 * directly; a larger one reads them into one array and joins each text from an array of parts
 * (type-checking cost linear in its placeholders; see compile-text.ts).
 */
export function promptToFunction(
  item: CodegenPrompt,
  functionName: string,
  options: FunctionOptions = { file: 'ts', omit: [] },
): FunctionSource {
  const { name, prompt } = item;
  const { file, omit } = options;
  // Every variable of every text, omitted texts too: the function's signature is the prompt's
  // contract (the lockfile's variables), the same in a server module and a browser one.
  // Each text is parsed once, for its variables and for its code.
  const parsed = new Map<string, ParsedText>();
  const texts = promptTexts(prompt).map(({ label, text }) => {
    if (typeof text !== 'string') return { label, text };
    const one = parseText(text);
    parsed.set(label, one);
    return { label, text, segments: one.segments };
  });
  const variables = listVariables(texts, name);
  const indexes = new Map(variables.map((variable, i) => [variable.name, i]));
  const index = (variable: string) => indexes.get(variable)!;
  const omitted = new Set<string>(omit);
  // Fields are checked (and their order fixed) even for a declaration, so every format fails alike.
  const fields = promptFields(prompt, name).filter(([key]) => !omitted.has(key) && (omit.length === 0 || FIELD_ORDER_SET.has(key)));
  const doc = functionDoc(item);
  if (file === 'dts') {
    return {
      source: `${doc}\nexport declare function ${functionName}(${parameter(variables)}): RenderedPrompt;`,
      value: false,
      plain: false,
      values: false,
      join: false,
      freeze: false,
      empty: false,
    };
  }
  const typed = file === 'ts';
  const signature = typed
    ? `${functionName}(${parameter(variables)}): RenderedPrompt`
    : `${functionName}(${variables.length > 0 ? 'variables' : ''})`;
  // Only the texts the module emits (not the omitted ones) decide the shape and are compiled.
  const emitted = new Map<string, ParsedText>();
  let placeholders = 0;
  for (const [key, value] of fields) {
    const text = parsed.get(key);
    if (value !== undefined || text === undefined) continue;
    emitted.set(key, text);
    placeholders += text.placeholders;
  }
  const direct = placeholders <= DIRECT_PLACEHOLDERS;
  const constants: string[] = [];
  const body: string[] = [];
  let join = false;
  let empty = false;
  let extra = 0;
  for (const [key, value] of fields) {
    if (value !== undefined) {
      if (value === null || typeof value !== 'object') {
        body.push(`    ${propertyKey(key)}: ${jsonLiteral(value)},`);
        continue;
      }
      if (Array.isArray(value) && value.length === 0) {
        empty = true;
        body.push(`    ${propertyKey(key)}: $empty,`);
        continue;
      }
      const constant = `${options.prefix ?? '$'}${FIELD_ORDER_SET.has(key) ? key : `extra${extra++}`}$${functionName}`;
      // Typed where the literal alone would be too wide (a context item's "type" as string).
      const type = typed && key !== 'tags' && key !== 'metadata' ? `: RenderedPrompt[${stringLiteral(key)}]` : '';
      constants.push(`const ${constant}${type} = /* @__PURE__ */ $freeze(${jsonLiteral(value)});`);
      body.push(`    ${propertyKey(key)}: ${constant},`);
      continue;
    }
    const text = emitted.get(key);
    const expression = text ? compileText(text, index, '      ', direct) : 'null';
    join ||= expression.startsWith('$join(');
    body.push(`    ${key}: ${expression},`);
  }
  const lines = [...constants, doc, `export function ${signature} {`];
  if (variables.length > 0 && direct) {
    // Read even when no emitted text uses them (a field omitted), so a call missing one fails in
    // every module alike; only the read of a value some text uses needs a name.
    const used = new Set<string>();
    for (const text of emitted.values()) for (const segment of text.segments) if (segment.kind === 'placeholder') used.add(segment.name);
    if (used.size > 0) lines.push('  const p = $plain(variables);');
    const promptName = stringLiteral(name);
    variables.forEach((variable, i) => {
      lines.push(
        used.has(variable.name)
          ? readVariable(promptName, variable.name, i)
          : `  $value(${promptName}, variables, ${stringLiteral(variable.name)});`,
      );
    });
  } else if (variables.length > 0) {
    // One array of values read by index: checking cost linear in the number of variables.
    const names = variables.map((variable) => stringLiteral(variable.name)).join(', ');
    lines.push(`  ${join ? 'const v = ' : ''}$values(${stringLiteral(name)}, variables, [${names}]);`);
  }
  lines.push('  return {', ...body, '  };', '}');
  return {
    source: lines.join('\n'),
    value: variables.length > 0 && direct,
    plain: direct && placeholders > 0,
    values: variables.length > 0 && !direct,
    join,
    freeze: constants.length > 0,
    empty,
  };
}
