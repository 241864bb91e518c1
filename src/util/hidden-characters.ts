/**
 * Characters a reader cannot see, or that change how the text around them reads: Unicode's format
 * characters (`\p{Cf}`: the bidi controls such as U+202E, zero-width spaces and joiners, the
 * byte-order mark, the soft hyphen, the invisible tag characters), the line and paragraph
 * separators, and control characters other than tab and newline. Wherever a reviewer reads text
 * from outside (the generated module, a snapshot, the pull-request body) each is written as its
 * escape, `\u202e`, so a "trojan source" text shows what it holds (docs/security.md, "Text a
 * reviewer reads"). The one list: every escaper builds on `HIDDEN_CLASS`.
 */

/** The characters above as the inside of a `u`-mode character class (tab and newline are not excluded here). */
const HIDDEN_CLASS = String.raw`\p{Cc}\p{Cf}\u2028\u2029`;

const HIDDEN = new RegExp(String.raw`(?![\t\n])[${HIDDEN_CLASS}]`, 'gu');
const HAS_HIDDEN = new RegExp(String.raw`(?![\t\n])[${HIDDEN_CLASS}]`, 'u');

/** `\u202e`, or `\u{e0041}` above the basic plane: the escape JavaScript reads back as the character. */
function unicodeEscape(character: string): string {
  const code = character.codePointAt(0)!;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every hidden character shown as its escape: for text a reviewer reads, not for a value. */
export function showHidden(text: string): string {
  // Most texts hold none: one test before the replace.
  return HAS_HIDDEN.test(text) ? text.replace(HIDDEN, unicodeEscape) : text;
}
