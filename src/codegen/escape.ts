/**
 * Turning arbitrary text into TypeScript source that reads back exactly. Prompt texts, titles and
 * variable names come from the service and may hold anything: quotes, backslashes, `${`, `*\/`,
 * line separators, NUL, lone surrogates, and characters a reviewer cannot see (bidi controls,
 * zero-width characters: src/util/hidden-characters.ts), which every literal writes as escapes and
 * every comment shows as `\u202e` (docs/security.md, "Text a reviewer reads").
 */
import { HIDDEN_SOURCE, showHidden, unicodeEscape } from '../util/hidden-characters.js';

/**
 * A double-quoted string literal whose value is exactly `text`. JSON.stringify already escapes
 * quotes, backslashes, control characters and (since ES2019) lone surrogates; `showHidden` escapes
 * what it leaves raw that no one can see (and U+2028/U+2029, legal in ES2019 string literals but
 * not in older parsers and tools).
 */
export function stringLiteral(text: string): string {
  return showHidden(JSON.stringify(text));
}

/** Any JSON value as a TypeScript expression (same escaping as `stringLiteral`). */
function jsonLiteral(value: unknown): string {
  return showHidden(JSON.stringify(value));
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key: bare when it is a plain identifier name, else a quoted string. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : stringLiteral(name);
}

/**
 * Any JSON value as an expression written as a person would (`{ createdAt: 1 }`, `["a", "b"]`),
 * strings escaped as by `stringLiteral`. A `__proto__` key is written computed, so it stays a key.
 */
export function valueLiteral(value: unknown): string {
  if (value === null || typeof value !== 'object') return jsonLiteral(value);
  if (Array.isArray(value)) return `[${value.map(valueLiteral).join(', ')}]`;
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const fields = entries.map(([key, item]) => `${key === '__proto__' ? '["__proto__"]' : propertyKey(key)}: ${valueLiteral(item)}`);
  return `{ ${fields.join(', ')} }`;
}

// Every line terminator ECMAScript knows: any of them would end a `//` comment, and in a JSDoc they
// would break the one-line layout.
const LINE_BREAKS = /\r\n|[\r\n\u2028\u2029]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Anything `docText` changes: a line break, any surrogate (paired ones are kept), `*\/`, a hidden character. */
const DOC_UNSAFE = new RegExp(`[\\r\\n\\u2028\\u2029\\uD800-\\uDFFF]|\\*/|${HIDDEN_SOURCE}`);

/**
 * Text for inside a `/** … *\/` comment, on one line: line breaks become spaces, `*\/` cannot close
 * the comment, lone surrogates (which UTF-8 cannot store) become U+FFFD, and hidden characters
 * show as their escapes (a comment is read, never run: what it shows matters, not its value).
 */
export function docText(text: string): string {
  // Most titles and descriptions hold none of these: one test, not four replaces.
  if (!DOC_UNSAFE.test(text)) return text.trim();
  return showHidden(text.replace(LONE_SURROGATE, '\uFFFD').replace(LINE_BREAKS, ' ')).replace(/\*\//g, '*\\/').trim();
}

// What a template literal cannot hold as it is: its own delimiters (`\`, the backtick, `${`), a
// carriage return (the parser turns CR and CRLF into LF), lone surrogates (UTF-8 cannot store
// them), and the hidden characters (src/util/hidden-characters.ts: controls, zero-width and bidi
// marks, the byte-order mark, the line separators), escaped so a reviewer sees them. Newlines and
// tabs stay as they are: the text reads like the prompt.
const LONE = String.raw`[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]`;
const TEMPLATE_UNSAFE = new RegExp(String.raw`[\\\x60]|\$(?=\{)|${HIDDEN_SOURCE}|${LONE}`, 'g');

/** Every character `TEMPLATE_UNSAFE` can match (any `$`, any surrogate), without its lookarounds. (`\x60` is the backtick.) */
const MAY_BE_TEMPLATE_UNSAFE = new RegExp(String.raw`[\\\x60$\uD800-\uDFFF]|${HIDDEN_SOURCE}`);

function templateEscape(c: string): string {
  if (c === '\\' || c === '`' || c === '$') return `\\${c}`;
  if (c === '\r') return '\\r';
  return unicodeEscape(c);
}

// A line of prompt text that reads like a git conflict marker (the edit formats of coding agents
// write `<<<<<<< SEARCH`, `=======`, `>>>>>>> REPLACE`): its first character is escaped (`\<` is
// `<` in a template literal), so every marker line of the module is one git wrote (the sync's
// "had git conflict markers" notice, `git diff --check`). A text piece may start mid-line (after a
// variable): escaping there too is harmless.
const MARKER_LINE = /(^|\n)(<{7}(?= |\r|\n|$)|>{7}(?= |\r|\n|$)|\|{7}(?= |\r|\n|$)|={7}(?=\r|\n|$))/g;

/**
 * The body of a template literal (without its backticks) whose value is exactly `text`: what the
 * generated module writes each prompt text with, its variables spliced in between as `${name}`.
 */
export function templateText(text: string): string {
  // Most texts hold none of these: one plain test before the replace with its lookarounds.
  const escaped = MAY_BE_TEMPLATE_UNSAFE.test(text) ? text.replace(TEMPLATE_UNSAFE, templateEscape) : text;
  return escaped.includes('<<<<<<<') || escaped.includes('=======') || escaped.includes('>>>>>>>') || escaped.includes('|||||||')
    ? escaped.replace(MARKER_LINE, '$1\\$2')
    : escaped;
}
