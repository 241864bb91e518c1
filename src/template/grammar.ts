/**
 * The placeholder grammar (docs/service-interface.md, "Which `{{…}}` is a variable"): which
 * `{{…}}` of a prompt text is a variable its function takes, and why any other one is text.
 * Real prompts are full of `{{…}}` that no author meant as a variable of the service: handlebars
 * and dotprompt blocks, comments and helpers, jinja expressions, JSX style objects, JSON examples
 * written with the f-string brace escape, Go templates, GitHub expressions. The service fills a
 * `{{…}}` only when a value of its name is given, and leaves it exactly as written otherwise, so
 * reading such a text as text loses nothing: it renders as its author wrote it.
 *
 * A placeholder is a variable when, between the braces (whitespace around each part ignored):
 * - its name is one word: letters of any script, digits and `_`, with single hyphens inside,
 *   not starting with a digit; a leading `$` is kept (Semantic Kernel's `{{$input}}`);
 * - what follows a `:`, if anything, is a type: a word, optionally with `[…]`/`<…>` (`number`,
 *   `string[]`), and what follows `//` is its description;
 * - and it is not a word the text's own template language gives a meaning: `else` and `this` in
 *   a text that opens a handlebars block (`{{#each …}}`), `else` and `end` in one that opens a Go
 *   block (`{{if …}}`, `{{range …}}`), or a name the text sets itself (`{% for item in items %}`,
 *   `{% set x = … %}`, `{{#each items as |item|}}`);
 * - and a JavaScript caller can pass it: not `__proto__`, at most 256 characters.
 */

/** What every reading asks of a variable name: 1 to 256 characters, no `{`, `}`, `:` or `//`, trimmed, not `__proto__`. */
export function variableNameRule(name: string): string | undefined {
  if (name === '__proto__')
    return 'it cannot be passed in a JavaScript object literal (an object literal\'s "__proto__" sets the prototype)';
  if (name.length > 256) return 'it is longer than 256 characters';
  if (name.length === 0 || /[{}:]/.test(name) || name.includes('//') || name.trim() !== name) {
    return 'a variable name has 1 to 256 characters, no "{", "}", ":" or "//", and no surrounding spaces';
  }
  return undefined;
}

const NAME = /^\$?[\p{L}_][\p{L}\p{M}\p{N}_]*(?:-[\p{L}\p{M}\p{N}_]+)*$/u;
/** A type as authors write one: `number`, `nubmer`, `string[]`, `list[str]`, `Array<string>`. */
const TYPE_LIKE = /^[A-Za-z]\w*(?:\[[\w\s,]*\]|<[\w\s,]*>)*$/;

/** Whether a hint is written as a type (`nubmer` is; `200, height: 200` is not). */
export function isTypeLike(hint: string): boolean {
  return TYPE_LIKE.test(hint);
}

/**
 * The words of the block languages, read as text in a text that opens a block of that language:
 * handlebars, mustache and dotprompt (`{{#if …}}`, `{{^items}}`: `{{else}}`, `{{this}}`) and Go
 * templates (`{{if …}}`, `{{range …}}`: `{{else}}`, `{{end}}`).
 */
const BLOCK_LANGUAGES: ReadonlyArray<{ opens: RegExp; words: ReadonlySet<string> }> = [
  { opens: /\{\{~?\s*[#^]/, words: new Set(['else', 'this']) },
  { opens: /\{\{-?\s*(?:if|range|with|block|define)\s/, words: new Set(['else', 'end']) },
];
/** Names a jinja tag or a handlebars block parameter list sets: `{% for a, b in %}`, `{% set x %}`, `{% macro m(a, b=1) %}`, `{% with a = 1 %}`, `as |item i|`. */
const SETS_NAMES = /\{%-?\s*(for|set|macro|with)\s+([^%]*)%\}|\bas\s+\|([^|]*)\|/g;
const WORD = /[\p{L}_][\p{L}\p{M}\p{N}_]*/gu;

/** What the grammar needs to know of the whole text, worked out once and only when a name asks. */
export class TextContext {
  private readonly opensBlock: Array<boolean | undefined> = [];
  private setNames: Set<string> | undefined;
  constructor(private readonly text: string) {}

  /** Why `name`, a variable name by its form, is text in this text; undefined when it is not. */
  reservedWhy(name: string): string | undefined {
    for (const [i, language] of BLOCK_LANGUAGES.entries()) {
      if (!language.words.has(name)) continue;
      this.opensBlock[i] ??= language.opens.test(this.text);
      if (this.opensBlock[i]) return `"${name}" is a word of the template's blocks`;
    }
    this.setNames ??= namesSetIn(this.text);
    return this.setNames.has(name) ? `the template sets "${name}" itself (a loop or a set)` : undefined;
  }
}

function namesSetIn(text: string): Set<string> {
  const names = new Set<string>();
  if (!text.includes('{%') && !text.includes('|')) return names;
  SETS_NAMES.lastIndex = 0;
  for (let match = SETS_NAMES.exec(text); match !== null; match = SETS_NAMES.exec(text)) {
    const [, tag, body = '', params] = match;
    let words: string;
    if (params !== undefined) words = params;
    else if (tag === 'for') words = body.split(/\sin\s/)[0]!;
    else if (tag === 'macro') words = (/\(([^)]*)\)/.exec(body)?.[1] ?? '').replace(/=[^,]*/g, '');
    else words = tag === 'set' ? body.split(/[=|]/)[0]! : body.replace(/=[^,]*/g, '');
    for (const word of words.match(WORD) ?? []) names.add(word);
  }
  return names;
}

/**
 * Why the grammar reads a placeholder as text, or undefined when it is a variable. `name` and
 * `hint` are as the service reads them (before the first `:`, trimmed; `hasColon` when there was
 * one); `context` is the text's.
 */
export function grammarWhy(name: string, hint: string | undefined, hasColon: boolean, context: TextContext): string | undefined {
  if (!NAME.test(name)) return nameWhy(name);
  if (hasColon && (hint === undefined || !TYPE_LIKE.test(hint))) return 'what follows ":" is not a type';
  const rule = variableNameRule(name);
  if (rule) return rule;
  return context.reservedWhy(name);
}

/** Why a name is not one word, by its first telling character. */
function nameWhy(name: string): string {
  const first = name[0]!;
  if (first === '#' || first === '^' || first === '/') return 'a template block';
  if (first === '!') return 'a template comment';
  if (first === '>') return 'a template partial';
  if (first === '"' || first === "'") return 'a quoted string (JSON or a literal)';
  if (name.includes('|')) return 'a filter';
  if (/\s/.test(name)) return 'more than one word (a helper call or an expression)';
  if (name.includes('(')) return 'a call';
  if (name.includes('.')) return 'a field of an object (a dotted name)';
  if (/^[0-9]/.test(name)) return 'it starts with a digit';
  return 'not a variable name (letters, digits, "_" and inner "-")';
}
