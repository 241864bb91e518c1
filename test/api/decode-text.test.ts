/** The text of an answer as sent or not at all (src/api/decode-text.ts): table of bytes, headers and outcomes. */
import { describe, expect, it } from 'vitest';
import { decodeText } from '../../src/api/decode-text.js';

const bom = { 'utf-8': [0xef, 0xbb, 0xbf], 'utf-16le': [0xff, 0xfe], 'utf-16be': [0xfe, 0xff] };
const json = '{"title":"Café ☕"}';
const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();

describe('decodeText', () => {
  it.each<[string, Buffer, string | undefined, string]>([
    ['UTF-8, no charset', Buffer.from(json), 'application/json', json],
    ['UTF-8, declared in any case and quoted', Buffer.from(json), 'application/json; Charset="UTF-8"', json],
    ['latin-1, declared', Buffer.from('{"t":"café"}', 'latin1'), 'application/json; charset=iso-8859-1', '{"t":"café"}'],
    ['UTF-16LE, declared utf-16', Buffer.from(json, 'utf16le'), 'application/json; charset=utf-16', json],
    ['UTF-16BE, declared', utf16be(json), 'application/json; charset=utf-16be', json],
    ['a UTF-8 mark, dropped', Buffer.concat([Buffer.from(bom['utf-8']), Buffer.from(json)]), 'application/json', json],
    ['a UTF-16LE mark wins over no charset', Buffer.concat([Buffer.from(bom['utf-16le']), Buffer.from(json, 'utf16le')]), undefined, json],
    [
      'a UTF-16BE mark wins over a declared utf-8',
      Buffer.concat([Buffer.from(bom['utf-16be']), utf16be(json)]),
      'application/json; charset=utf-8',
      json,
    ],
  ])('%s', (_name, body, contentType, text) => {
    expect(decodeText({ body, headers: contentType ? { 'content-type': contentType } : {} })).toBe(text);
  });

  it.each<[string, Buffer, string | undefined, string]>([
    [
      'latin-1 bytes, no charset',
      Buffer.from('{"t":"café"}', 'latin1'),
      undefined,
      'the body is not valid UTF-8 (the default when no charset is declared) at byte 9',
    ],
    [
      'latin-1 bytes, declared utf-8',
      Buffer.from('{"t":"café"}', 'latin1'),
      'application/json; charset=utf-8',
      'the body is not valid UTF-8 (as its Content-Type declares) at byte 9',
    ],
    [
      'a stray continuation byte',
      Buffer.from([0x61, 0x80, 0x62]),
      undefined,
      'the body is not valid UTF-8 (the default when no charset is declared) at byte 1',
    ],
    [
      'a character cut at the end',
      Buffer.from([0x61, 0xe2, 0x82]),
      undefined,
      'the body is not valid UTF-8 (the default when no charset is declared), cut in the middle of a character at its end',
    ],
    [
      'an unknown charset',
      Buffer.from('{}'),
      'application/json; charset=x-klingon',
      'its Content-Type declares charset "x-klingon", which promptlock cannot decode',
    ],
    [
      'a lone surrogate in UTF-16',
      Buffer.from([0x00, 0xd8, 0x61, 0x00]),
      'application/json; charset=utf-16le',
      'the body is not valid utf-16le (as its Content-Type declares)',
    ],
  ])('refuses %s, never a U+FFFD', (_name, body, contentType, message) => {
    expect(() => decodeText({ body, headers: contentType ? { 'content-type': contentType } : {} })).toThrow(message);
  });
});
