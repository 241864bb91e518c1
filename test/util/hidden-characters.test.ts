/** The one list of hidden characters (src/util/hidden-characters.ts): what it is, and how it is shown. */
import { describe, expect, it } from 'vitest';
import { HIDDEN_SOURCE, showHidden } from '../../src/util/hidden-characters.js';

describe('HIDDEN_SOURCE', () => {
  it('is exactly the controls but tab and newline, the format characters and the line separators, over all of Unicode', () => {
    const ours = new RegExp(`^(?:${HIDDEN_SOURCE})$`);
    const unicode = /^[\p{Cc}\p{Cf}\u2028\u2029]$/u;
    const differ: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const character = String.fromCodePoint(code);
      const want = unicode.test(character) && character !== '\t' && character !== '\n';
      if (ours.test(character) !== want) differ.push(code.toString(16));
    }
    expect(differ).toEqual([]);
  });
});

describe('showHidden', () => {
  it.each([
    ['bidi and zero-width', 'a\u202eb\u200bc', 'a\\u202eb\\u200bc'],
    ['a tag character, as its surrogate escapes', 'x\u{e0041}', 'x\\udb40\\udc41'],
    ['tab and newline kept; emoji kept', 'a\tb\nc 😀', 'a\tb\nc 😀'],
    ['in JSON, the value reads back the same', JSON.stringify('q\u2066'), '"q\\u2066"'],
  ])('%s', (_case, text, want) => {
    expect(showHidden(text)).toBe(want);
  });
});
