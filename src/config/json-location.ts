/**
 * Where a JSON config is wrong. Node 20's `JSON.parse` does not always say where; jsonc-parser
 * (the parser of VS Code's settings) does. Its parser recurses once per level of nesting, so a
 * text nested deeper than MAX_JSON_DEPTH is found by its scanner first (a config nested 100,000
 * deep crashed the locator with a stack overflow).
 */

import type { ParseError } from 'jsonc-parser';

/** Deeper than any config: `limits` is the deepest option, at two levels. */
const MAX_JSON_DEPTH = 64;

export interface JsonProblem {
  /** Offset of the problem in the text. */
  offset: number;
  /** What is wrong, when JSON.parse's words would not say it (too deep). */
  reason?: string;
}

// jsonc-parser's SyntaxKind is a const enum, which isolatedModules cannot read: its values here.
const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const EOF = 17;

/** The first problem of a JSON text; undefined when it is valid JSON nested at most MAX_JSON_DEPTH deep. */
export async function jsonProblem(text: string): Promise<JsonProblem | undefined> {
  const { createScanner, parse } = await import('jsonc-parser');
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let token = scanner.scan(); token !== EOF; token = scanner.scan()) {
    if (token === OPEN_BRACE || token === OPEN_BRACKET) {
      if (++depth > MAX_JSON_DEPTH) {
        return { offset: scanner.getTokenOffset(), reason: `the JSON nests more than ${MAX_JSON_DEPTH} levels deep` };
      }
    } else if (token === CLOSE_BRACE || token === CLOSE_BRACKET) {
      depth--;
    }
  }
  const errors: ParseError[] = [];
  parse(text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text, errors, { disallowComments: true, allowTrailingComma: false });
  return errors[0] ? { offset: errors[0].offset } : undefined;
}
