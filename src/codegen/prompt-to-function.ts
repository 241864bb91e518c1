/**
 * One prompt → one exported function: JSDoc, a typed `variables` parameter (none when the prompt
 * has no variables), the presence check, and the returned object with its texts precompiled.
 * As TypeScript, as JavaScript, or as its declaration for a `.d.ts` file.
 */

import type { LockEntry } from '../store/lockfile-format.js';
import { listVariables, type Variable, type VariableType } from '../template/index.js';
import { PROMPT_FIELD_ORDER, type Prompt, promptTexts, type TextField } from '../types.js';
import { compileText } from './compile-text.js';
import { docText, jsonLiteral, propertyKey, stringLiteral } from './escape.js';
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

/** The type map of docs/service-interface.md (Variables); unknown hints were already typed `string` by the template module. */
const TS_TYPES: Readonly<Record<VariableType, string>> = {
  string: 'string',
  number: 'number',
  boolean: 'boolean',
  array: 'unknown[]',
  object: 'Record<string, unknown>',
};

function texts(prompt: Prompt): Array<{ label: TextField; text: string | null | undefined }> {
  return promptTexts(prompt);
}

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
}

/** A function's source and the runtime helpers it calls. */
export interface FunctionSource {
  source: string;
  /** Calls `$values` (the prompt has variables). */
  values: boolean;
  /** Calls `$join` (an emitted text has placeholders). */
  join: boolean;
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
  const variables = listVariables(texts(prompt), name);
  const indexes = new Map(variables.map((variable, i) => [variable.name, i]));
  const index = (variable: string) => indexes.get(variable)!;
  const omitted = new Set<string>(omit);
  // Fields are checked (and their order fixed) even for a declaration, so every format fails alike.
  const fields = promptFields(prompt, name).filter(([key]) => !omitted.has(key) && (omit.length === 0 || FIELD_ORDER_SET.has(key)));
  const doc = functionDoc(item);
  if (file === 'dts') {
    return {
      source: `${doc}\nexport declare function ${functionName}(${parameter(variables)}): RenderedPrompt;`,
      values: false,
      join: false,
    };
  }
  const typed = file === 'ts';
  const signature = typed
    ? `${functionName}(${parameter(variables)}): RenderedPrompt`
    : `${functionName}(${variables.length > 0 ? 'variables' : ''})`;
  const body: string[] = [];
  let join = false;
  for (const [key, value] of fields) {
    if (value !== undefined) {
      body.push(`    ${propertyKey(key)}: ${jsonLiteral(value)},`);
      continue;
    }
    const text = prompt[key as TextField];
    const expression = typeof text === 'string' ? compileText(text, index, '      ') : 'null';
    join ||= expression.startsWith('$join(');
    body.push(`    ${key}: ${expression},`);
  }
  const lines = [doc, `export function ${signature} {`];
  if (variables.length > 0) {
    // One array of values read by index: checking cost linear in the number of variables. Read
    // even when no emitted text uses them, so a call missing one fails in every module alike.
    const names = variables.map((variable) => stringLiteral(variable.name)).join(', ');
    lines.push(`  ${join ? 'const v = ' : ''}$values(${stringLiteral(name)}, variables, [${names}]);`);
  }
  lines.push('  return {', ...body, '  };', '}');
  return { source: lines.join('\n'), values: variables.length > 0, join };
}
