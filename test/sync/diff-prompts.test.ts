import { describe, expect, it } from 'vitest';
import { diffPrompts, formatDiffMarkdown, formatDiffText } from '../../src/sync/diff-prompts.js';
import type { Prompt } from '../../src/types.js';

const p = (over: Partial<Prompt> = {}): Prompt => ({
  id: 'i',
  title: 'T',
  content: 'one\ntwo\nthree',
  systemPrompt: 'sys',
  tags: [],
  version: 'v1',
  workspaceSlug: 'a',
  packageName: '@a/x:v1',
  context: [],
  metadata: { createdAt: 1 },
  ...over,
});
const map = (prompt?: Prompt) => new Map(prompt ? [['@a/x', prompt]] : []);

describe('diffPrompts', () => {
  it('an edited line is one - and one + line with context', () => {
    const [d] = diffPrompts(map(p()), map(p({ content: 'one\nTWO\nthree', version: 'v2' })));
    expect(d).toMatchObject({ name: '@a/x', status: 'changed', from: 'v1', to: 'v2' });
    expect(d!.fields).toEqual([{ field: 'content', lines: ['@@ -1,3 +1,3 @@', ' one', '-two', '+TWO', ' three'] }]);
  });

  it('a text that became null is removed lines, not an empty line', () => {
    const [d] = diffPrompts(map(p()), map(p({ systemPrompt: null })));
    expect(d!.fields).toEqual([{ field: 'systemPrompt', lines: ['@@ -1,1 +0,0 @@', '-sys'] }]);
  });

  it('an added prompt is all + lines, a removed one shows no fields and is breaking (its function goes)', () => {
    const [added] = diffPrompts(map(), map(p()));
    expect(added!.status).toBe('added');
    expect(added!.fields.find((f) => f.field === 'content')!.lines).toEqual(['@@ -0,0 +1,3 @@', '+one', '+two', '+three']);
    const [removed] = diffPrompts(map(p()), map());
    expect(removed!.status).toBe('removed');
    expect(formatDiffText([removed!])).toBe('- @a/x  removed (was v1)  BREAKING\n  breaking: its function leaves the generated module\n');
    expect(formatDiffMarkdown([removed!])).toBe(
      '## Prompt changes (1, 1 breaking)\n\n### ⚠️ **Breaking** `@a/x` — removed (was v1)\n\n**Breaking:** its function leaves the generated module.\n\n',
    );
  });

  it('nothing changed is no entry, and says so', () => {
    expect(diffPrompts(map(p()), map(p()))).toEqual([]);
    expect(formatDiffText([])).toBe('No changes: sync would leave every prompt as it is.\n');
  });

  it('markdown fences are longer than any backtick run in the text', () => {
    const diffs = diffPrompts(map(p()), map(p({ content: 'use ```ts fences``` here' })));
    expect(formatDiffMarkdown(diffs)).toContain('````diff\n');
  });
});

describe('bounded line diffs', () => {
  const lines = (n: number, word: string) => Array.from({ length: n }, (_, i) => `${word} ${i}`).join('\n');

  it.each([
    ['400 changed lines are diffed line by line', 400, false],
    ['600 changed lines (1,200 edits) are "text replaced"', 600, true],
  ])('%s', (_, n, replaced) => {
    const [d] = diffPrompts(map(p({ content: lines(n, 'old') })), map(p({ content: lines(n, 'new'), version: 'v2' })));
    const [field] = d!.fields;
    if (replaced) {
      expect(field).toEqual({ field: 'content', lines: [], replaced: { before: n, after: n } });
      expect(formatDiffText([d!])).toContain(`  content: text replaced: ${n} lines → ${n} lines`);
    } else {
      expect(field!.replaced).toBeUndefined();
      expect(field!.lines.filter((l) => l.startsWith('+'))).toHaveLength(n);
    }
  });

  it('a new prompt of 20,000 lines is all additions, not "text replaced"', () => {
    const [d] = diffPrompts(new Map(), map(p({ content: lines(20_000, 'line') })));
    expect(d!.fields.find((f) => f.field === 'content')!.lines).toHaveLength(20_001);
  });
});
