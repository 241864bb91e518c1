/** What can be sent as typed (src/config/sendable.ts): the first character outside visible ASCII, counted as people count. */
import { describe, expect, it } from 'vitest';
import { firstUnsendable, refuseUnsendableKey } from '../../src/config/sendable.js';
import { ConfigError } from '../../src/errors.js';

describe('firstUnsendable', () => {
  it.each<[string, string, ReturnType<typeof firstUnsendable>]>([
    ['a well-formed key', `sk_live_${'a'.repeat(42)}`, undefined],
    ["the README's placeholder", 'sk_live_…', { position: 9, length: 9, described: 'U+2026 (an ellipsis "…")' }],
    ['a zero-width space at the end', 'sk_live_abc\u200b', { position: 12, length: 12, described: 'U+200B (a zero-width space)' }],
    ['a space inside', 'sk_live_a bc', { position: 10, length: 12, described: 'U+0020 (a space)' }],
    ['an emoji before a mark (counted as one character)', '😀\u00a0', { position: 1, length: 2, described: 'U+1F600 ("😀")' }],
    ['a control character', 'a\u0007', { position: 2, length: 2, described: 'U+0007 (a control character)' }],
  ])('%s', (_name, text, expected) => {
    expect(firstUnsendable(text)).toEqual(expected);
  });
});

describe('refuseUnsendableKey', () => {
  it('names where the key came from and the character, the key masked', () => {
    const key = `sk_live_${'k'.repeat(38)}wxyz\u200b`;
    expect(() => refuseUnsendableKey(key, 'BAYT_API_KEY in .env')).toThrow(ConfigError);
    expect(() => refuseUnsendableKey(key, 'BAYT_API_KEY in .env')).toThrow(
      'The API key sk_live…xyz\u200b from BAYT_API_KEY in .env cannot be sent in a request: character 51 of 51 is U+200B (a zero-width space).',
    );
    expect(() => refuseUnsendableKey(undefined, 'nowhere')).not.toThrow();
  });
});
