import { isTypeLike, variableNameRule } from './grammar.js';
import { lineColumn, type Placeholder, parseTemplate, type Segment, type VariableType } from './parse-template.js';

export interface Variable {
  name: string;
  type: VariableType;
  /** The first type hint that typed this variable, as written, when there was one. */
  hint?: string;
  description?: string;
}

/**
 * How a prompt's placeholders are read (the `placeholders` option of the config, recorded in each
 * lock entry): by the grammar (`undefined`, grammar.ts), by the grammar with the placeholders of
 * some names kept as text (`{ text }`), or every `{{…}}` as a variable, as the service's SDK reads
 * them (`'sdk'`).
 */
export type PlaceholderReading = 'sdk' | { readonly text: readonly string[] };

/** A named text to read variables from; `label` names it in errors (`content`, `systemPrompt`…). */
export interface LabeledText {
  label: string;
  text: string | null | undefined;
  /** `parseTemplate(text)`, when the caller has it already (the code generator does). */
  segments?: readonly Segment[];
}

/**
 * A text promptlock cannot read as a typed function: two type hints for one name, or (read as the
 * SDK reads) a name no function can take. Says where: `field` and 1-based `line`. Defined here so
 * template/ imports nothing else of promptlock; src/errors.ts re-exports it as the public
 * `TemplateError` and makes it a `PromptlockError` (exit code 1, `hint` printed under the message).
 */
export class TemplateError extends Error {
  override name = 'TemplateError';
  readonly exitCode = 1 as const;
  readonly hint: string | undefined;
  readonly field: string | undefined;
  readonly line: number | undefined;
  constructor(message: string, options: { hint?: string; field?: string; line?: number } = {}) {
    super(message);
    this.hint = options.hint;
    this.field = options.field;
    this.line = options.line;
  }
}

/** A placeholder that renders as written: where, as written, and why it is no variable. */
interface KeptPlaceholder {
  field: string;
  line: number;
  text: string;
  why: string;
}

/** A variable's hint written as a type that is none of the service's (`{{count:nubmer}}`): typed as if it had none. */
interface UnknownHint {
  field: string;
  line: number;
  text: string;
  hint: string;
}

/** What a prompt's texts give its function: the variables, and what was read otherwise. */
interface TextsReading {
  variables: Variable[];
  /** Placeholders that render exactly as written (their name is no variable of the prompt), in text order. */
  kept: KeptPlaceholder[];
  unknownHints: UnknownHint[];
}

interface Seen {
  variable: Variable;
  /** Where the hint that fixed the type was written, for conflict messages. */
  typedAt: (() => string) | undefined;
}

/** Why `placeholder` reads as text under `reading`; undefined when it is a variable. */
function textWhy(placeholder: Placeholder, reading: PlaceholderReading | undefined): string | undefined {
  if (reading === 'sdk') return undefined;
  if (reading?.text.includes(placeholder.name)) return 'kept as text by the "placeholders" option of the config';
  return placeholder.asText;
}

/** 1-based line of each offset asked for, in increasing order, counted once over the text. */
function lineCounter(text: string): (offset: number) => number {
  let line = 1;
  let at = 0;
  return (offset) => {
    for (let i = text.indexOf('\n', at); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
      line++;
      at = i + 1;
    }
    return line;
  };
}

/**
 * Reads one or more texts as the function of a prompt: its variables in first-seen order, with
 * their type and description, and the placeholders kept as text. A name written with no hint in
 * one place and a type hint in another takes the type; a hint that is no type of the service
 * types nothing (it is listed in `unknownHints`). Two different types for one name is a
 * `TemplateError` that says where each was written. A placeholder that is text by the reading is
 * filled all the same when its name is a variable of the prompt (the service fills by name), so
 * only the others are `kept`.
 *
 * @param where prefix for error locations, e.g. the package name.
 */
export function readTexts(texts: string | readonly LabeledText[], where?: string, reading?: PlaceholderReading): TextsReading {
  const sources: readonly LabeledText[] = typeof texts === 'string' ? [{ label: 'text', text: texts }] : texts;
  const seen = new Map<string, Seen>();
  const candidates: Array<KeptPlaceholder & { name: string }> = [];
  const unknownHints: UnknownHint[] = [];
  for (const { label, text, segments } of sources) {
    if (!text) continue;
    const lineOf = lineCounter(text);
    for (const segment of segments ?? parseTemplate(text)) {
      if (segment.kind !== 'placeholder') continue;
      const line = lineOf(segment.offset);
      const why = textWhy(segment, reading);
      if (why !== undefined) {
        candidates.push({ name: segment.name, field: label, line, text: segment.raw, why });
        continue;
      }
      // Line and column cost a scan of the text: worked out only for an error message.
      const location = () => {
        const { line, column } = lineColumn(text, segment.offset);
        return `${where ? `${where} ` : ''}${label} ${line}:${column}`;
      };
      const rule = reading === 'sdk' ? variableNameRule(segment.name) : undefined;
      if (rule) {
        throw new TemplateError(
          `${segment.raw.length > 80 ? `${segment.raw.slice(0, 77)}...` : segment.raw} at ${location()} cannot be a variable: ${rule}.`,
          {
            hint: 'Rename it on the service, or read this prompt by the grammar: take it out of the "placeholders" option of the config (README, "Placeholders").',
            field: label,
            line,
          },
        );
      }
      const typed = segment.hint !== undefined && segment.knownHint;
      if (segment.hint !== undefined && !segment.knownHint && isTypeLike(segment.hint)) {
        unknownHints.push({ field: label, line, text: segment.raw, hint: segment.hint });
      }
      const entry = seen.get(segment.name);
      if (!entry) {
        const variable: Variable = { name: segment.name, type: typed ? segment.type : 'string' };
        if (typed) variable.hint = segment.hint;
        if (segment.description !== undefined) variable.description = segment.description;
        seen.set(segment.name, { variable, typedAt: typed ? location : undefined });
        continue;
      }
      const { variable } = entry;
      if (segment.description !== undefined && variable.description === undefined) {
        variable.description = segment.description;
      }
      if (!typed) continue;
      if (entry.typedAt === undefined) {
        variable.type = segment.type;
        variable.hint = segment.hint;
        entry.typedAt = location;
      } else if (variable.type !== segment.type) {
        throw new TemplateError(
          `Variable "${segment.name}" has conflicting type hints: "${variable.hint}" at ${entry.typedAt()} and "${segment.hint}" at ${location()}.`,
          {
            hint: `Use one type for "${segment.name}" everywhere it appears (or leave the hint off all but one place), or keep "${segment.name}" as text in the "placeholders" option of the config (README, "Placeholders").`,
            field: label,
            line,
          },
        );
      }
    }
  }
  return {
    variables: [...seen.values()].map((entry) => entry.variable),
    kept: candidates.filter((c) => !seen.has(c.name)).map(({ name: _name, ...kept }) => kept),
    unknownHints,
  };
}

/** The variables of `readTexts`: what the prompt's function takes. */
export function listVariables(texts: string | readonly LabeledText[], where?: string, reading?: PlaceholderReading): Variable[] {
  return readTexts(texts, where, reading).variables;
}
