/**
 * Text from outside (a variable name, a field's key, a file name, a service's error message, a
 * prompt's lines) in the markdown promptlock writes for reviewers: the pull-request body of
 * `sync --report`, `diff --format markdown`, the job summary of `check --format github`.
 *
 * Such text is always code, one function per place it goes: inline (`codeSpan`), in a table cell
 * (`tableCell`), as lines of its own (`codeBlock`). Code is the one context where neither
 * CommonMark (HTML, comments that hide what follows, images, links, headings) nor GitHub's own
 * pass over the rendered text (@mentions, issue references, bare URLs) acts, and it shows the
 * reviewer which words are the service's. No outside text starts a line: every line starts with
 * promptlock's own words or a fence, and a code span cannot open a block (its closing backticks
 * are on the same line, which no code fence allows). Hidden characters are shown as escapes.
 * docs/security.md, "Text a reviewer reads".
 */
import { showHidden } from './hidden-characters.js';

/** Line breaks, shown as `\n` so a text stays on its line. */
const LINE_BREAK = /\r\n|[\r\n]/g;

/** The longest run of backticks in `text`. */
function longestBackticks(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/**
 * `text` as one code span on one line: fenced by more backticks than it holds, padded where
 * CommonMark would otherwise eat a backtick or a space of it.
 */
export function codeSpan(text: string): string {
  const flat = showHidden(text.replace(LINE_BREAK, '\\n'));
  if (flat === '') return '` `';
  const fence = '`'.repeat(longestBackticks(flat) + 1);
  const pad = /^[` ]|[` ]$/.test(flat) ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** `text` as a GitHub table cell: a code span whose pipes are escaped, as GFM tables require even inside code. */
export function tableCell(text: string): string {
  return codeSpan(text).replaceAll('|', '\\|');
}

/** `text` (several lines) as a fenced code block, fenced by more backticks than any line holds. */
export function codeBlock(text: string, info = ''): string[] {
  const body = showHidden(text);
  const fence = '`'.repeat(Math.max(3, longestBackticks(body) + 1));
  return [`${fence}${info}`, body, fence];
}
