import { lineColumn, parseTemplate, type Segment, type VariableType } from './parse-template.js';

export interface Variable {
  name: string;
  type: VariableType;
  /** The first hint written for this variable, as written, when there was one. */
  hint?: string;
  description?: string;
}

/** A named text to read variables from; `label` names it in errors (`content`, `systemPrompt`…). */
export interface LabeledText {
  label: string;
  text: string | null | undefined;
  /** `parseTemplate(text)`, when the caller has it already (the code generator does). */
  segments?: readonly Segment[];
}

/**
 * Two type hints for one variable. Defined here so template/ imports nothing else of promptlock;
 * src/errors.ts re-exports it as the public `TemplateError` and makes it a `PromptlockError`
 * (exit code 1, `hint` printed under the message) like the other named errors.
 */
export class TemplateError extends Error {
  override name = 'TemplateError';
  readonly exitCode = 1 as const;
  readonly hint: string | undefined;
  constructor(message: string, options: { hint?: string } = {}) {
    super(message);
    this.hint = options.hint;
  }
}

interface Seen {
  variable: Variable;
  /** Where the hint that fixed the type was written, for conflict messages. */
  typedAt: (() => string) | undefined;
}

/**
 * Lists the variables of one or more texts in first-seen order, with their type and description.
 * A name written with no hint in one place and a hint in another takes the hint. Two different
 * types for one name is a `TemplateError` that says where each was written.
 *
 * @param where prefix for error locations, e.g. the package name.
 */
export function listVariables(texts: string | readonly LabeledText[], where?: string): Variable[] {
  const sources: readonly LabeledText[] = typeof texts === 'string' ? [{ label: 'text', text: texts }] : texts;
  const seen = new Map<string, Seen>();
  for (const { label, text, segments } of sources) {
    if (!text) continue;
    for (const segment of segments ?? parseTemplate(text)) {
      if (segment.kind !== 'placeholder') continue;
      // Line and column cost a scan of the text: worked out only for an error message.
      const location = () => {
        const { line, column } = lineColumn(text, segment.offset);
        return `${where ? `${where} ` : ''}${label} ${line}:${column}`;
      };
      const entry = seen.get(segment.name);
      if (!entry) {
        const variable: Variable = { name: segment.name, type: segment.type };
        if (segment.hint !== undefined) variable.hint = segment.hint;
        if (segment.description !== undefined) variable.description = segment.description;
        seen.set(segment.name, { variable, typedAt: segment.hint === undefined ? undefined : location });
        continue;
      }
      const { variable } = entry;
      if (segment.description !== undefined && variable.description === undefined) {
        variable.description = segment.description;
      }
      if (segment.hint === undefined) continue;
      if (entry.typedAt === undefined) {
        variable.type = segment.type;
        variable.hint = segment.hint;
        entry.typedAt = location;
      } else if (variable.type !== segment.type) {
        throw new TemplateError(
          `Variable "${segment.name}" has conflicting type hints: "${variable.hint}" at ${entry.typedAt()} and "${segment.hint}" at ${location()}.`,
          { hint: `Use one type for "${segment.name}" everywhere it appears (or leave the hint off all but one place).` },
        );
      }
    }
  }
  return [...seen.values()].map((entry) => entry.variable);
}
