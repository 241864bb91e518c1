/**
 * One prompt → one exported function: JSDoc, a typed `variables` parameter (none when the prompt
 * has no variables), the presence check, and the returned object with its texts precompiled.
 */
import { promptTexts, type Prompt, type TextField } from '../types.js';
import { listVariables, type Variable, type VariableType } from '../template/index.js';
import type { LockEntry } from '../store/lockfile-format.js';
import { compileText } from './compile-text.js';
import { docText, jsonLiteral, propertyKey, stringLiteral } from './escape.js';
import { promptFields } from './prompt-fields.js';

/** One prompt to generate: its base package name, lock entry and decoded snapshot. */
export interface CodegenPrompt {
  /** Base package name, `@ws/pkg`. */
  name: string;
  entry: LockEntry;
  prompt: Prompt;
}

/** DESIGN.md's type map; unknown hints were already typed `string` by the template module. */
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

/** The source of the exported function `functionName` for one prompt. */
export function promptToFunction(item: CodegenPrompt, functionName: string): string {
  const { name, prompt } = item;
  const variables = listVariables(texts(prompt), name);
  const indexes = new Map(variables.map((variable, i) => [variable.name, i]));
  const index = (variable: string) => indexes.get(variable)!;

  const lines = [functionDoc(item), `export function ${functionName}(${parameter(variables)}): RenderedPrompt {`];
  if (variables.length > 0) {
    // One array of values read by index: checking cost linear in the number of variables.
    const names = variables.map((variable) => stringLiteral(variable.name)).join(', ');
    lines.push(`  const v = $values(${stringLiteral(name)}, variables, [${names}]);`);
  }
  lines.push('  return {');
  for (const [key, value] of promptFields(prompt, name)) {
    if (value !== undefined) {
      lines.push(`    ${propertyKey(key)}: ${jsonLiteral(value)},`);
      continue;
    }
    const text = prompt[key as TextField];
    const expression = typeof text === 'string' ? compileText(text, index, '      ') : 'null';
    lines.push(`    ${key}: ${expression},`);
  }
  lines.push('  };', '}');
  return lines.join('\n');
}
