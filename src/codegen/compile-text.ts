/**
 * Precompiles a prompt text into a TypeScript string expression, so the generated module never
 * parses a template at run time. A text without placeholders is a string literal; one with
 * placeholders is one array of its parts, literal texts and indexes into the prompt's values,
 * joined once: `Hello {{name}}!` → `$join(v, ["Hello ", 0, "!"])`. Checking that array costs the
 * type checker time linear in its length, where a chain of `"…" + v0 + "…"` terms costs quadratic
 * time (measured: 195 s for 10,000 placeholders; docs/security.md). Parsing is done by the shared
 * template module, the same one the local service renders with, so the two agree.
 */
import { parseTemplate } from '../template/index.js';
import { stringLiteral } from './escape.js';

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

/**
 * @param index maps a variable name to its position in the prompt's values (`v[0]`, `v[1]`…).
 * @param indent what continuation lines start with.
 */
export function compileText(text: string, index: (name: string) => number, indent: string): string {
  const segments = parseTemplate(text);
  if (!segments.some((segment) => segment.kind === 'placeholder')) return text ? textLiteral(text, indent) : '""';
  const parts: string[] = [];
  for (const segment of segments) {
    parts.push(segment.kind === 'placeholder' ? String(index(segment.name)) : textLiteral(segment.text, indent));
  }
  return `$join(v, [${parts.join(', ')}])`;
}
