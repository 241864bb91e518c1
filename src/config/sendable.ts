/**
 * What can travel in a request as typed: the API key goes into the `Authorization` header, which
 * carries Latin-1 at most (the HTTP client refuses anything else), and a key or an address is
 * visible ASCII by its format. A character outside it (the README's `sk_live_…` placeholder
 * pasted as is, a zero-width space copied with a key) is a configuration error named at once,
 * with its position, never a request that cannot be sent (docs/security.md, "The network").
 */
import { ConfigError } from '../errors.js';
import { maskKey } from '../secrets.js';

/** Characters people paste without seeing them, by name. */
const NAMES: Record<number, string> = {
  9: 'a tab',
  10: 'a line break',
  13: 'a carriage return',
  32: 'a space',
  160: 'a no-break space',
  173: 'a soft hyphen',
  8203: 'a zero-width space',
  8204: 'a zero-width non-joiner',
  8205: 'a zero-width joiner',
  8230: 'an ellipsis "…"',
  8288: 'a word joiner',
  65279: 'a byte-order mark',
};

export interface Unsendable {
  /** 1-based, counted in characters as a person counts them (code points). */
  position: number;
  length: number;
  /** `U+200B (a zero-width space)`. */
  described: string;
}

/** The first character of `text` outside visible ASCII (`!` to `~`), or undefined when there is none. */
export function firstUnsendable(text: string): Unsendable | undefined {
  const chars = [...text];
  const index = chars.findIndex((char) => {
    const code = char.codePointAt(0)!;
    return code < 0x21 || code > 0x7e;
  });
  if (index < 0) return undefined;
  const code = chars[index]!.codePointAt(0)!;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = NAMES[code] ?? (code < 0x20 || (code >= 0x7f && code < 0xa0) ? 'a control character' : `"${chars[index]}"`);
  return { position: index + 1, length: chars.length, described: `${hex} (${name})` };
}

/**
 * Throws the configuration error (exit code 2) for a key that cannot be sent: which variable and
 * file it came from (`from`), where the character is, and the key masked.
 */
export function refuseUnsendableKey(key: string | undefined, from: string): void {
  const bad = key === undefined ? undefined : firstUnsendable(key);
  if (!bad) return;
  throw new ConfigError(
    `The API key ${maskKey(key!)} from ${from} cannot be sent in a request: character ${bad.position} of ${bad.length} is ${bad.described}.`,
    {
      hint: 'Copy the key again from the service\'s dashboard: a key is "sk_live_" or "sk_test_" and letters and digits, with no "…", space or invisible character.',
    },
  );
}
