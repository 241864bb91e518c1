/**
 * The text of an answer, as sent or not at all (docs/service-interface.md, "Answers on the wire"):
 * a byte-order mark decides the encoding, else the `charset` of `Content-Type`, else UTF-8; the
 * decoder is fatal, so bytes that are not valid in that encoding refuse the answer instead of
 * turning into U+FFFD in a snapshot or a live prompt. The mark itself is dropped (JSON.parse
 * would refuse it).
 */
import { TextDecoder } from 'node:util';
import type { AttemptAnswer } from './http-attempt.js';

/** Why an answer's bytes are not text: thrown by `decodeText`, reported with the endpoint. */
export class UndecodableText extends Error {}

export function decodeText(answer: Pick<AttemptAnswer, 'body' | 'headers'>): string {
  const bytes = answer.body;
  const declared = charsetOf(answer.headers['content-type']);
  const marked = byteOrderMark(bytes);
  const label = marked ?? declared ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch {
    throw new UndecodableText(`its Content-Type declares charset "${label.slice(0, 40)}", which promptlock cannot decode`);
  }
  try {
    return decoder.decode(bytes);
  } catch {
    const named = decoder.encoding === 'utf-8' ? 'UTF-8' : decoder.encoding;
    const why = marked
      ? 'as its byte-order mark says'
      : declared
        ? 'as its Content-Type declares'
        : 'the default when no charset is declared';
    throw new UndecodableText(`the body is not valid ${named} (${why})${offsetOfInvalidUtf8(bytes, decoder.encoding)}`);
  }
}

/** The text, or undefined when it cannot be decoded: for error bodies, whose text is only a courtesy. */
export function decodeTextOrUndefined(answer: Pick<AttemptAnswer, 'body' | 'headers'>): string | undefined {
  try {
    return decodeText(answer);
  } catch {
    return undefined;
  }
}

/** `charset` of a `Content-Type` value, lower case, quotes removed; undefined when there is none. */
function charsetOf(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(value ?? '');
  return match ? match[2]!.toLowerCase() : undefined;
}

/** The encoding a byte-order mark at the start names (as the WHATWG decode algorithm reads it). */
function byteOrderMark(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return undefined;
}

/** ` at byte N` for the first byte that breaks UTF-8, so the answer can be looked at; empty for other encodings. */
function offsetOfInvalidUtf8(bytes: Uint8Array, encoding: string): string {
  if (encoding !== 'utf-8') return '';
  // Halving over prefixes read as a stream (a character cut at the prefix's end is not an error
  // yet), so the longest valid prefix ends right before the first bad byte.
  let good = 0;
  let bad = bytes.length + 1;
  while (bad - good > 1) {
    const middle = (good + bad) >> 1;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, middle), { stream: true });
      good = middle;
    } catch {
      bad = middle;
    }
  }
  if (good === bytes.length) return ', cut in the middle of a character at its end';
  // The byte after the valid prefix broke it, or it broke a character begun inside the prefix:
  // then the character's first byte is the one to look at (`caf\xE9}`: byte 3, not 4).
  let start = good;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, good));
  } catch {
    while (start > 0 && (bytes[start - 1]! & 0xc0) === 0x80) start--;
    start = Math.max(0, start - 1);
  }
  return ` at byte ${start}`;
}
