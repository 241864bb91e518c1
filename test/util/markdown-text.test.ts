/** The escapers of outside text in markdown (src/util/markdown-text.ts), table-driven. */
import { describe, expect, it } from 'vitest';
import { codeBlock, codeSpan, tableCell } from '../../src/util/markdown-text.js';

describe('codeSpan', () => {
  it.each([
    ['plain text', 'name', '`name`'],
    ['backticks inside: a longer fence', 'a`b``c', '```a`b``c```'],
    ['a backtick at an end: padded', '`x', '`` `x ``'],
    ['spaces at both ends: padded, so CommonMark keeps them', ' x ', '`  x  `'],
    ['line breaks shown as \\n', 'a\r\nb\nc', '`a\\nb\\nc`'],
    ['hidden characters shown as escapes', 'a\u202eb\u200b', '`a\\u202eb\\u200b`'],
    ['empty', '', '` `'],
  ])('%s', (_case, text, want) => {
    expect(codeSpan(text)).toBe(want);
  });
});

describe('tableCell', () => {
  it('escapes pipes, inside the code span too', () => {
    expect(tableCell('a|b')).toBe('`a\\|b`');
  });
});

describe('codeBlock', () => {
  it('fences with more backticks than any line holds, at least three', () => {
    expect(codeBlock('x', 'diff')).toEqual(['```diff', 'x', '```']);
    expect(codeBlock('a\n````\nb', 'diff')).toEqual(['`````diff', 'a\n````\nb', '`````']);
  });
});
