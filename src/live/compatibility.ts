/**
 * The compatibility rule of live prompts (docs/live.md): a version from the service is served
 * only when every variable it uses is one the generated function takes, with the same type.
 * Fewer variables are fine (the caller's extra values are simply not used); a new variable, a
 * retyped one, or texts whose hints conflict keep the last compatible version.
 */
import { TemplateError } from '../errors.js';
import { listVariables, type PlaceholderReading, type VariableType } from '../template/index.js';
import { promptTexts } from '../types.js';

export interface LiveTexts {
  content: string;
  systemPrompt?: string | null;
  critiquePrompt?: string | null;
}

/**
 * Why `texts` cannot be served through a function taking `committed`, or undefined when it can.
 * Read as the lockfile read the committed version (`reading`, README "Placeholders").
 */
export function incompatibility(
  texts: LiveTexts,
  committed: ReadonlyMap<string, VariableType>,
  where: string,
  reading?: PlaceholderReading,
): string | undefined {
  let variables;
  try {
    variables = listVariables(promptTexts(texts), where, reading);
  } catch (error) {
    if (error instanceof TemplateError) return `its text does not parse: ${error.message}`;
    throw error;
  }
  const problems: string[] = [];
  for (const variable of variables) {
    const type = committed.get(variable.name);
    if (type === undefined) problems.push(`new variable "${variable.name}" (${variable.type})`);
    else if (type !== variable.type) problems.push(`variable "${variable.name}" is ${variable.type}, the generated function takes ${type}`);
  }
  return problems.length > 0 ? problems.join('; ') : undefined;
}
