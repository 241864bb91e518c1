/**
 * Small scanners over source text. The editors work on the original text with positions taken
 * from the syntax tree, so everything they do not touch (comments, blank lines, quotes, odd
 * spacing) stays byte-for-byte as the user wrote it.
 */

/** Position of the next token at or after `pos`, past whitespace, newlines and comments. */
export function skipTrivia(text: string, pos: number): number {
  let p = pos;
  for (;;) {
    while (p < text.length && /\s/.test(text[p]!)) p++;
    if (text.startsWith('//', p)) {
      const end = text.indexOf('\n', p);
      p = end === -1 ? text.length : end;
    } else if (text.startsWith('/*', p)) {
      const end = text.indexOf('*/', p + 2);
      p = end === -1 ? text.length : end + 2;
    } else {
      return p;
    }
  }
}

/** Position past spaces and tabs (not newlines). */
export function skipSpaces(text: string, pos: number): number {
  let p = pos;
  while (text[p] === ' ' || text[p] === '\t') p++;
  return p;
}

export function lineStart(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

/**
 * When only spaces and comments follow `pos` on its line, the position where that line's
 * ending (`\n` or `\r\n`, or the end of the text) starts; otherwise undefined.
 */
export function cleanLineEnd(text: string, pos: number): number | undefined {
  let p = skipSpaces(text, pos);
  for (;;) {
    if (text.startsWith('/*', p)) {
      const end = text.indexOf('*/', p + 2);
      if (end === -1 || text.slice(p, end).includes('\n')) return undefined;
      p = skipSpaces(text, end + 2);
      continue;
    }
    if (text.startsWith('//', p)) {
      const end = text.indexOf('\n', p);
      p = end === -1 ? text.length : end;
    }
    if (p === text.length) return p;
    if (text[p] === '\n') return text[p - 1] === '\r' ? p - 1 : p;
    if (text.startsWith('\r\n', p)) return p;
    return undefined;
  }
}

/** The leading whitespace of the line `pos` is on. */
export function indentAt(text: string, pos: number): string {
  const start = lineStart(text, pos);
  return text.slice(start, skipSpaces(text, start));
}

/** True when `pos` is the first non-blank character of its line. */
export function startsLine(text: string, pos: number): boolean {
  return skipSpaces(text, lineStart(text, pos)) === pos;
}

/** The file's indentation step, taken from its first indented line (two spaces if none). */
export function indentUnit(text: string): string {
  return /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
}

export function newlineOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** Applies non-overlapping edits, from the last to the first so positions stay valid. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) {
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  }
  return out;
}
