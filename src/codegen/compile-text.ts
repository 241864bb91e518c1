/**
 * Precompiles a prompt text into a TypeScript string expression, so the generated module never
 * parses a template at run time: `Hello {{name}}!` → `"Hello " + v0 + "!"`. Parsing is done by the
 * shared template module, the same one the local service renders with, so the two agree.
 */
import { parseTemplate } from '../template/index.js';
import { stringLiteral } from './escape.js';

/**
 * @param local maps a variable name to the local holding its text value (`v0`, `v1`…).
 * @param indent what continuation lines start with; a text is broken after each newline so the
 * module reads like the prompt.
 */
export function compileText(text: string, local: (name: string) => string, indent: string): string {
  const pieces: string[] = [];
  const breakAfter: boolean[] = [];
  for (const segment of parseTemplate(text)) {
    if (segment.kind === 'placeholder') {
      pieces.push(local(segment.name));
      breakAfter.push(false);
      continue;
    }
    let start = 0;
    for (let nl = segment.text.indexOf('\n'); nl !== -1; nl = segment.text.indexOf('\n', start)) {
      pieces.push(stringLiteral(segment.text.slice(start, nl + 1)));
      breakAfter.push(true);
      start = nl + 1;
    }
    if (start < segment.text.length) {
      pieces.push(stringLiteral(segment.text.slice(start)));
      breakAfter.push(false);
    }
  }
  if (pieces.length === 0) return '""';
  let out = pieces[0]!;
  for (let i = 1; i < pieces.length; i++) out += breakAfter[i - 1] ? ` +\n${indent}${pieces[i]}` : ` + ${pieces[i]}`;
  return out;
}
