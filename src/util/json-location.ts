/**
 * Where a JSON text is wrong, as a line and a column: Node 20's `JSON.parse` says at best a
 * character offset, often not even that. jsonc-parser (the parser of VS Code's settings) says
 * where; it is loaded only when a text failed to parse. Its parser recurses once per level of
 * nesting, so a text nested deeper than MAX_JSON_DEPTH is found by its scanner first (a config
 * nested 100,000 deep crashed the locator with a stack overflow).
 */
import { createRequire } from 'node:module';
import type { ParseError } from 'jsonc-parser';

type JsoncParser = typeof import('jsonc-parser');

/** Deeper than any config, lockfile or snapshot needs. */
const MAX_JSON_DEPTH = 64;

export interface JsonProblem {
  /** Offset of the problem in the text. */
  offset: number;
  /** 1-based line and column of the offset. */
  line: number;
  column: number;
  /** What is wrong, in jsonc-parser's words (`value expected`, `comma expected`). */
  words: string;
  /** What is wrong, when JSON.parse's words would not say it (nested too deep). */
  reason?: string;
}

// jsonc-parser's SyntaxKind is a const enum, which isolatedModules cannot read: its values here.
const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const EOF = 17;

let parser: JsoncParser | undefined;
const jsonc = (): JsoncParser => (parser ??= createRequire(import.meta.url)('jsonc-parser') as JsoncParser);

/** `CommaExpected` → `comma expected`. */
const words = (code: string) => code.replace(/(?<=[a-z])(?=[A-Z])/g, ' ').toLowerCase();

/** The first problem of a JSON text; undefined when it is valid JSON nested at most MAX_JSON_DEPTH deep. */
export function jsonProblem(text: string): JsonProblem | undefined {
  const { createScanner, parse, printParseErrorCode } = jsonc();
  const at = (offset: number, what: string, reason?: string): JsonProblem => {
    const before = text.slice(0, offset).split('\n');
    return { offset, line: before.length, column: before[before.length - 1]!.length + 1, words: what, ...(reason ? { reason } : {}) };
  };
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let token = scanner.scan(); token !== EOF; token = scanner.scan()) {
    if (token === OPEN_BRACE || token === OPEN_BRACKET) {
      if (++depth > MAX_JSON_DEPTH) {
        const deep = `the JSON nests more than ${MAX_JSON_DEPTH} levels deep`;
        return at(scanner.getTokenOffset(), deep, deep);
      }
    } else if (token === CLOSE_BRACE || token === CLOSE_BRACKET) {
      depth--;
    }
  }
  const errors: ParseError[] = [];
  parse(text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text, errors, { disallowComments: true, allowTrailingComma: false });
  return errors[0] ? at(errors[0].offset, words(printParseErrorCode(errors[0].error))) : undefined;
}

/**
 * What follows "is not valid JSON" in an error about `text`, which `JSON.parse` refused with
 * `error`: ` at line 3, column 8: value expected`, or JSON.parse's words when the locator finds
 * nothing wrong (they disagree on very little).
 */
export function jsonErrorDetail(text: string, error: unknown): string {
  const problem = jsonProblem(text);
  return problem ? ` at line ${problem.line}, column ${problem.column}: ${problem.words}` : `: ${(error as Error).message}`;
}
