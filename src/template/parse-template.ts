/**
 * The template language of prompt texts (docs/service-interface.md, "Variables inside prompt text"):
 * `{{name}}`, `{{ name }}`, `{{name:type}}`, `{{name:type // description}}`.
 *
 * Every `{{…}}` with something inside is a placeholder as the service reads it: its name is what
 * comes before the first `:` (and before `//`), trimmed. The service fills a placeholder whose name
 * has a value and leaves any other exactly as written. Which placeholders are variables of the
 * prompt's function is the grammar's call (grammar.ts): each placeholder carries its verdict. This
 * one parser is used by the code generator (which compiles each text into its generated function),
 * the local service and `promptlock/live`, so all three split a text alike; the parity test holds
 * the generated render to the service's.
 */
import { grammarWhy, TextContext } from './grammar.js';

export type VariableType = 'string' | 'number' | 'boolean' | 'array' | 'object';

/** Type hints the service knows, mapped to their canonical type. */
const TYPE_HINTS: Readonly<Record<string, VariableType>> = {
  string: 'string',
  str: 'string',
  text: 'string',
  number: 'number',
  int: 'number',
  integer: 'number',
  boolean: 'boolean',
  bool: 'boolean',
  array: 'array',
  list: 'array',
  object: 'object',
  dict: 'object',
};

/** Every type hint the service knows, in the order docs/service-interface.md lists them. */
export const TYPE_HINT_NAMES: readonly string[] = Object.keys(TYPE_HINTS);

export interface Placeholder {
  kind: 'placeholder';
  /** The placeholder exactly as written, braces included: what stays when no value is given. */
  raw: string;
  name: string;
  /** The hint as written (trimmed), if any. */
  hint: string | undefined;
  /** Canonical type of the hint; `string` when there is none or it is not a known type name. */
  type: VariableType;
  /** Whether `hint` is a known type name. An unknown hint is typed as `string`. */
  knownHint: boolean;
  description: string | undefined;
  /** Why the grammar reads it as text (grammar.ts); undefined when it is a variable. */
  asText: string | undefined;
  /** Offset of the opening `{{` in the text. */
  offset: number;
}

interface TextSegment {
  kind: 'text';
  text: string;
}

export type Segment = TextSegment | Placeholder;

// `{{`, then anything without braces, then `}}`. `{{{x}}}` parses as `{` + `{{x}}` + `}`.
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/** Splits `inner` (what is between the braces) into name, hint and description. */
function parseInner(inner: string): { name: string; hint?: string; hasColon: boolean; description?: string } | undefined {
  let head = inner;
  let description: string | undefined;
  const slashes = inner.indexOf('//');
  if (slashes !== -1) {
    head = inner.slice(0, slashes);
    description = inner.slice(slashes + 2).trim() || undefined;
  }
  const colon = head.indexOf(':');
  const name = (colon === -1 ? head : head.slice(0, colon)).trim();
  if (!name) return undefined;
  const hint = colon === -1 ? undefined : head.slice(colon + 1).trim() || undefined;
  return { name, hint, hasColon: colon !== -1, description };
}

/** Parses a prompt text into literal text and placeholders, in order. Never throws. */
export function parseTemplate(text: string): Segment[] {
  const segments: Segment[] = [];
  const context = new TextContext(text);
  let last = 0;
  // `exec` on the one regex, not `matchAll`, which copies the regex for every text it reads.
  PLACEHOLDER.lastIndex = 0;
  for (let match = PLACEHOLDER.exec(text); match !== null; match = PLACEHOLDER.exec(text)) {
    const parsed = parseInner(match[1]!);
    if (!parsed) continue;
    const offset = match.index;
    if (offset > last) segments.push({ kind: 'text', text: text.slice(last, offset) });
    const hintType = parsed.hint === undefined ? undefined : TYPE_HINTS[parsed.hint.toLowerCase()];
    segments.push({
      kind: 'placeholder',
      raw: match[0],
      name: parsed.name,
      hint: parsed.hint,
      type: hintType ?? 'string',
      knownHint: parsed.hint === undefined || hintType !== undefined,
      description: parsed.description,
      asText: grammarWhy(parsed.name, parsed.hint, parsed.hasColon, context),
      offset,
    });
    last = offset + match[0].length;
  }
  if (last < text.length) segments.push({ kind: 'text', text: text.slice(last) });
  return segments;
}

/** 1-based line and column of `offset` in `text`, for error messages. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
