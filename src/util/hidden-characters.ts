/**
 * Characters a reader cannot see, or that change how the text around them reads: Unicode's format
 * characters (`\p{Cf}`: the bidi controls such as U+202E, zero-width spaces and joiners, the
 * byte-order mark, the soft hyphen, the invisible tag characters), the line and paragraph
 * separators, and control characters other than tab and newline. Wherever a reviewer reads text
 * from outside (the generated module's literals and comments, a snapshot, the pull-request body)
 * each is written as its escape, `\u202e`, so a "trojan source" text shows what it holds
 * (docs/security.md, "Text a reviewer reads"). The one list: every escaper builds on it.
 */

/**
 * The characters above but tab and newline, as a regular expression source without the `u` flag:
 * those of the basic plane as one class, the others (tag characters, a few format controls) by
 * their surrogate pairs. It is `[\p{Cc}\p{Cf}\u2028\u2029]` written out, because V8 scans a class
 * of ranges several times faster than one of property escapes; test/util/hidden-characters.test.ts
 * holds the two equal.
 */
export const HIDDEN_SOURCE =
  '[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u00ad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2\\u180e' +
  '\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb]' +
  '|\\ud804[\\udcbd\\udccd]|\\ud80d[\\udc30-\\udc3f]|\\ud82f[\\udca0-\\udca3]|\\ud834[\\udd73-\\udd7a]|\\udb40[\\udc01\\udc20-\\udc7f]';

const HIDDEN = new RegExp(HIDDEN_SOURCE, 'g');
const HAS_HIDDEN = new RegExp(HIDDEN_SOURCE);

/**
 * `\u202e`; a character above the basic plane as its two UTF-16 escapes (`\udb40\udc41`), which
 * JSON, JavaScript strings and template literals all read back as the character.
 */
export function unicodeEscape(character: string): string {
  let out = '';
  for (let i = 0; i < character.length; i++) out += `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/**
 * `text` with every hidden character but tab and newline written as its escape. In a JSON
 * document or a JavaScript string literal (which hold no raw control character) the value read
 * back is exactly the text; anywhere else it is for the eye.
 */
export function showHidden(text: string): string {
  // Most texts hold none: one test before the replace.
  return HAS_HIDDEN.test(text) ? text.replace(HIDDEN, unicodeEscape) : text;
}
