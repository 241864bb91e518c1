/**
 * The new content of a file in a commit, and its bytes a chunk at a time: a large module is never
 * held twice in memory, neither when it is appended to the journal nor when it is compared with
 * the file on disk.
 */

/** A file's new content: bytes, a text, or a text as the pieces it is made of (a generated module). */
export type Content = string | Uint8Array | readonly string[];

/** Characters encoded at once when a text is appended or compared. */
export const CHUNK_CHARS = 1 << 20;

/** A text given as pieces (`Array.isArray` does not narrow a readonly array). */
export const isPieces = (content: unknown): content is readonly string[] => Array.isArray(content);

/** The byte length of a write's content, without encoding it. */
export function byteLengthOf(content: Content): number {
  if (typeof content === 'string') return Buffer.byteLength(content);
  if (!isPieces(content)) return content.byteLength;
  let length = 0;
  for (const piece of content) length += Buffer.byteLength(piece);
  return length;
}

/** The UTF-8 bytes of `content`, a chunk at a time (a text is never cut inside a surrogate pair). */
export function* chunksOf(content: Content): Generator<Buffer> {
  if (isPieces(content)) {
    // Whole pieces gathered up to a chunk's size: a piece is never cut, so neither is a character.
    let batch: string[] = [];
    let chars = 0;
    for (const piece of content) {
      batch.push(piece);
      chars += piece.length;
      if (chars >= CHUNK_CHARS) {
        yield Buffer.from(batch.join(''));
        batch = [];
        chars = 0;
      }
    }
    if (chars > 0) yield Buffer.from(batch.join(''));
    return;
  }
  if (typeof content !== 'string') {
    yield Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    return;
  }
  for (let start = 0; start < content.length; ) {
    let end = Math.min(start + CHUNK_CHARS, content.length);
    const last = content.charCodeAt(end - 1);
    if (end < content.length && last >= 0xd800 && last <= 0xdbff) end--;
    yield Buffer.from(content.slice(start, end));
    start = end;
  }
}
