/**
 * Precompiles a prompt text into a TypeScript string expression, so the generated module never
 * parses a template at run time. Parsing is done by the shared template module, the same one the
 * local service renders with, so the two agree. Three shapes:
 *
 * - no placeholders: a string literal (`"Hello!"`);
 * - `direct`, for prompts with few placeholders: the literal texts and the values' local names
 *   concatenated, `"Hello " + v0 + "!"`: the fastest render (no helper call, no array);
 * - otherwise one array of its parts, literal texts and indexes into the prompt's values, joined
 *   once: `$join(v, ["Hello ", 0, "!"])`. Checking that array costs the type checker time linear in
 *   its length, where a chain of `"…" + v0 + "…"` terms costs quadratic time (measured: 195 s for
 *   10,000 placeholders; docs/security.md), so `direct` is only used below `DIRECT_PLACEHOLDERS`.
 *
 * Literal texts are broken after each newline, so the module reads like the prompt. In a direct
 * concatenation a literal spanning several lines is parenthesised, `v0 + ("a\n" + "b")`, which the
 * JavaScript parser folds into one string, so the line breaks cost nothing at run time.
 */
import { parseTemplate, type Segment } from '../template/index.js';
import { stringLiteral } from './escape.js';

/** Most placeholders (all texts of a prompt together) rendered by direct concatenation. */
export const DIRECT_PLACEHOLDERS = 32;

/** A literal text broken after each newline, so the module reads like the prompt. */
function textLiteral(text: string, indent: string): string {
  const lines: string[] = [];
  let start = 0;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
    lines.push(stringLiteral(text.slice(start, nl + 1)));
    start = nl + 1;
  }
  if (start < text.length) lines.push(stringLiteral(text.slice(start)));
  return lines.join(` +\n${indent}`);
}

/** A text parsed once: its segments and how many of them are placeholders. */
export interface ParsedText {
  segments: Segment[];
  placeholders: number;
}

export function parseText(text: string): ParsedText {
  const segments = parseTemplate(text);
  let placeholders = 0;
  for (const segment of segments) if (segment.kind === 'placeholder') placeholders++;
  return { segments, placeholders };
}

/**
 * @param index maps a variable name to its position in the prompt's values (`v0`/`v[0]`…).
 * @param indent what continuation lines start with.
 * @param direct concatenate literal texts and `v<index>` locals instead of calling `$join`.
 */
export function compileText(text: ParsedText, index: (name: string) => number, indent: string, direct = false): string {
  const { segments, placeholders } = text;
  // Without placeholders the text is at most one literal segment.
  const first = segments[0];
  if (placeholders === 0) return first?.kind === 'text' && first.text ? textLiteral(first.text, indent) : '""';
  const parts: string[] = [];
  for (const segment of segments) {
    if (segment.kind === 'text' && segment.text === '') continue;
    if (segment.kind === 'placeholder') {
      parts.push(direct ? `v${index(segment.name)}` : String(index(segment.name)));
      continue;
    }
    const literal = textLiteral(segment.text, indent);
    parts.push(direct && literal.includes('\n') ? `(${literal})` : literal);
  }
  // Every operand of a direct concatenation is a string (values are read as text), so `+` only
  // ever concatenates, whatever the order of literals and values.
  return direct ? parts.join(' + ') : `$join(v, [${parts.join(', ')}])`;
}
