import { cleanLineEnd, indentAt, lineStart, skipSpaces, skipTrivia, startsLine, type TextEdit } from './text-scan.js';

/**
 * A comma-separated list in source text: the elements of an array literal or the properties of
 * an object literal. Positions come from the syntax tree; `items` exclude surrounding comments.
 */
export interface ListShape {
  /** Position of `[` or `{`. */
  open: number;
  /** Position of `]` or `}`. */
  close: number;
  items: readonly { start: number; end: number }[];
}

export interface LayoutHints {
  newline: string;
  indentUnit: string;
  /** Whether a multi-line list the file gives no evidence about should end with a comma. */
  trailingComma: boolean;
  /** Inside an empty single-line list: '' for `['a']`, ' ' for `{ a: 1 }`. */
  padding: string;
}

/** The comma right after `end` (past comments), if there is one. */
function commaAfter(text: string, end: number): number | undefined {
  const p = skipTrivia(text, end);
  return text[p] === ',' ? p : undefined;
}

function isMultiLine(text: string, list: ListShape): boolean {
  return text.slice(list.open, list.close).includes('\n');
}

/**
 * Appends `item` to the list in the list's own style: on its own line under the last item for a
 * multi-line list (after that item's same-line comment), inline otherwise, with a trailing comma
 * exactly when the list already had one.
 */
export function insertListItem(text: string, list: ListShape, item: string, hints: LayoutHints): TextEdit[] {
  const { newline } = hints;
  const last = list.items[list.items.length - 1];
  if (!last) {
    if (!isMultiLine(text, list)) {
      return [{ start: list.open + 1, end: list.close, text: `${hints.padding}${item}${hints.padding}` }];
    }
    const comma = hints.trailingComma ? ',' : '';
    const closeLine = lineStart(text, list.close);
    if (!startsLine(text, list.close)) {
      const indent = indentAt(text, list.close);
      return [{ start: list.close, end: list.close, text: `${newline}${indent}${hints.indentUnit}${item}${comma}${newline}${indent}` }];
    }
    // Line up with a comment already inside the list (`// '@acme/*',`), else indent one step.
    const inner = text
      .slice(list.open + 1, closeLine)
      .split(/\r?\n/)
      .filter((line) => line.trim() !== '');
    const indent = inner.length > 0 ? /^[ \t]*/.exec(inner[inner.length - 1]!)![0] : indentAt(text, list.close) + hints.indentUnit;
    return [{ start: closeLine, end: closeLine, text: `${indent}${item}${comma}${newline}` }];
  }

  const comma = commaAfter(text, last.end);
  if (!isMultiLine(text, list)) {
    return comma === undefined
      ? [{ start: last.end, end: last.end, text: `, ${item}` }]
      : [{ start: comma + 1, end: comma + 1, text: ` ${item},` }];
  }
  const indent = indentAt(text, last.start);
  const lineEnd = cleanLineEnd(text, comma === undefined ? last.end : comma + 1);
  if (lineEnd === undefined) {
    // The closing bracket shares the last item's line: break the line before the new item.
    return comma === undefined
      ? [{ start: last.end, end: last.end, text: `,${newline}${indent}${item}` }]
      : [{ start: comma + 1, end: comma + 1, text: `${newline}${indent}${item},` }];
  }
  const edits: TextEdit[] = [{ start: lineEnd, end: lineEnd, text: `${newline}${indent}${item}${comma === undefined ? '' : ','}` }];
  if (comma === undefined) edits.push({ start: last.end, end: last.end, text: ',' });
  return edits;
}

/**
 * Inserts `item` before item `index`: on a line of its own above that item (and above the `//`
 * lines that describe it) in a multi-line list, else inline before it.
 */
export function insertListItemBefore(text: string, list: ListShape, index: number, item: string, newline: string): TextEdit[] {
  const before = list.items[index]!;
  if (isMultiLine(text, list) && startsLine(text, before.start)) {
    const at = describingCommentsStart(text, list, before.start);
    return [{ start: at, end: at, text: `${indentAt(text, before.start)}${item},${newline}` }];
  }
  return [{ start: before.start, end: before.start, text: `${item}, ` }];
}

/**
 * Where the `//` comment lines right above an item start (no blank line between): they describe
 * it, so they go with it. A commented-out entry (`// '@acme/*',`) is kept: it is a choice the user
 * parked, not a note about this item.
 */
function describingCommentsStart(text: string, list: ListShape, itemStart: number): number {
  const openLine = lineStart(text, list.open);
  let start = lineStart(text, itemStart);
  while (start > openLine) {
    const above = lineStart(text, start - 1);
    // The list's own first line (`prompts: [ // …`) never belongs to one item.
    if (above === openLine || !/^\/\/(?!\s*['"`])/.test(text.slice(above, start).trim())) break;
    start = above;
  }
  return start;
}

/**
 * Removes item `index`. An item alone on its line goes with its line, its same-line comment
 * and the `//` lines right above it, which describe it; other comments stay. Otherwise only the item and one
 * comma go, so the rest of the line keeps its spacing.
 */
export function removeListItem(text: string, list: ListShape, index: number): TextEdit[] {
  const item = list.items[index]!;
  const prev = list.items[index - 1];
  const isLast = index === list.items.length - 1;
  const comma = commaAfter(text, item.end);
  const afterComma = comma === undefined ? item.end : comma + 1;
  // Dropping the last item of a list without a trailing comma leaves the previous comma dangling.
  const prevComma = isLast && comma === undefined && prev ? commaAfter(text, prev.end) : undefined;
  const dropPrevComma: TextEdit[] = prevComma === undefined ? [] : [{ start: prevComma, end: prevComma + 1, text: '' }];

  const lineEnd = cleanLineEnd(text, afterComma);
  if (isMultiLine(text, list) && startsLine(text, item.start) && lineEnd !== undefined) {
    const nextLine = text.startsWith('\r\n', lineEnd) ? lineEnd + 2 : Math.min(lineEnd + 1, text.length);
    return [...dropPrevComma, { start: describingCommentsStart(text, list, item.start), end: nextLine, text: '' }];
  }
  if (isLast && prev) {
    // `'a', 'b'` → `'a'`: take the separator before the item; a trailing comma stays in place.
    const separator = commaAfter(text, prev.end) ?? prev.end;
    return [{ start: separator, end: item.end, text: '' }];
  }
  if (comma === undefined) return [{ start: item.start, end: item.end, text: '' }];
  const end = skipSpaces(text, comma + 1);
  if (cleanLineEnd(text, comma + 1) === end) {
    // The item ended its line: keep the line break, drop the spaces before the item instead.
    let start = item.start;
    while (start > 0 && (text[start - 1] === ' ' || text[start - 1] === '\t')) start--;
    return [{ start, end, text: '' }];
  }
  return [{ start: item.start, end, text: '' }];
}
