/**
 * The pull-request body of `sync --report`: title, breaking changes first, the prompts refused and
 * skipped with reason, field and line, the placeholders kept as text, each prompt's diff with its
 * context files, nothing when nothing changed, and a body bounded in size that names what it left
 * out and where to read it. Text from the service only in code spans.
 */
import { describe, expect, it } from 'vitest';
import { diffPrompts } from '../../src/sync/diff-prompts.js';
import type { PlaceholderNote } from '../../src/sync/placeholder-notes.js';
import { pullRequestReport } from '../../src/sync/pull-request-report.js';
import type { SkippedPrompt } from '../../src/sync/types.js';
import type { ContextItem, Prompt } from '../../src/types.js';

function prompt(pkg: string, version: number, content: string, context: ContextItem[] = []): Prompt {
  return {
    id: `pmt_${pkg}`,
    title: pkg,
    content,
    tags: [],
    version: `v${version}`,
    workspaceSlug: 'acme',
    packageName: `@acme/${pkg}:v${version}`,
    context,
    metadata: { createdAt: version },
  };
}

const file = (id: string, fileName: string, fileSize: number): ContextItem => ({ id, type: 'file', createdAt: 1, fileName, fileSize });

function report(
  before: Prompt[],
  after: Prompt[],
  maxChars?: number,
  more: { skipped?: SkippedPrompt[]; placeholders?: PlaceholderNote[] } = {},
) {
  const b = new Map(before.map((p) => [`@acme/${p.title}`, p]));
  const a = new Map(after.map((p) => [`@acme/${p.title}`, p]));
  return pullRequestReport(
    diffPrompts(b, a),
    { before: b, after: a },
    { snapshotsDir: 'prompts', ...(maxChars ? { maxChars } : {}), ...more },
  );
}

const refused = (name: string, reason: string, extra: Partial<SkippedPrompt> = {}): SkippedPrompt => ({
  name,
  reason,
  refused: true,
  field: 'content',
  line: 2,
  ...extra,
});

describe('pullRequestReport', () => {
  it('is empty when nothing changed', () => {
    const same = [prompt('welcome', 1, 'Hi')];
    expect(report(same, same)).toEqual({ title: '', body: '', breaking: [], changed: [] });
  });

  it.each([
    ['one prompt updated', [prompt('welcome', 1, 'Hi')], [prompt('welcome', 2, 'Hello')], 'Update @acme/welcome to v2'],
    ['one prompt added', [], [prompt('welcome', 1, 'Hi')], 'Add @acme/welcome v1'],
    ['one prompt removed (breaking)', [prompt('welcome', 1, 'Hi')], [], 'Remove @acme/welcome (breaking)'],
    [
      'several, one breaking',
      [prompt('a', 1, 'Hi'), prompt('b', 1, 'Yo')],
      [prompt('a', 2, 'Hi {{name}}'), prompt('b', 2, 'Yo!')],
      'Update 2 prompts (1 breaking)',
    ],
  ])('titles %s', (_name, before, after, title) => {
    const result = report(before, after);
    expect(result.title).toBe(title);
    expect(result.body.split('\n')[0]).toBe(`## ${title.replace('@acme/welcome', '`@acme/welcome`')}`);
  });

  it('puts breaking changes first, with what changed in the parameter, and lists context files', () => {
    const result = report(
      [prompt('a-text', 1, 'Hi', [file('ctx_1', 'old.pdf', 10)]), prompt('z-break', 1, 'Hi {{name}}')],
      [
        prompt('a-text', 2, 'Hi!', [file('ctx_1', 'old.pdf', 12), file('ctx_2', 'guide.pdf', 5)]),
        prompt('z-break', 2, 'Hi {{name}} {{n:number}}'),
      ],
    );
    expect(result.breaking).toEqual(['@acme/z-break']);
    expect(result.changed).toEqual(['@acme/z-break', '@acme/a-text']);
    const body = result.body;
    expect(body).toContain("- `@acme/z-break`: its function's parameter changes (variables added: `n`)");
    expect(body.indexOf('#### ⚠️ **Breaking** `@acme/z-break`')).toBeLessThan(body.indexOf('#### `@acme/a-text`'));
    expect(body).toContain('- `old.pdf` (file, changed)\n- `guide.pdf` (file, added)');
  });

  it('keeps a context file name from the service inside its code span', () => {
    const hostile = 'a` @acme/team ![x](https://evil.example/x.png) ``b\nc';
    const body = report([prompt('a', 1, 'Hi')], [prompt('a', 2, 'Hi!', [file('ctx_1', hostile, 1)])]).body;
    expect(body).toContain('- ```a` @acme/team ![x](https://evil.example/x.png) ``b\\nc``` (file, added)');
  });

  it('stays under its size bound, naming what it left out and where to read it', () => {
    const many = Array.from({ length: 40 }, (_, i) => i);
    const long = (rev: number) => Array.from({ length: 200 }, (_, l) => `line ${l} of revision ${rev}`).join('\n');
    const result = report(
      many.map((i) => prompt(`p${String(i).padStart(2, '0')}`, 1, long(1))),
      many.map((i) => prompt(`p${String(i).padStart(2, '0')}`, 2, long(2))),
      20_000,
    );
    expect(result.body.length).toBeLessThanOrEqual(20_000);
    expect(result.changed).toHaveLength(40);
    expect(result.body).toMatch(/_\d+ prompts left out to keep this description under GitHub's size limit: `@acme\/p\d\d`/);
    expect(result.body).toContain('`git diff HEAD~1 -- prompts` on its branch');
    // Whole sections only: every diff shown is closed.
    expect((result.body.match(/```/g) ?? []).length % 2).toBe(0);
  });

  it('lists each refused prompt with its reason, field and line, and what stays locked; not the ones with only a draft', () => {
    const reason =
      'Variable "count" has conflicting type hints: "number" at @acme/flaky content 1:10 and "string" at @acme/flaky content 2:9';
    const body = report([prompt('a', 1, 'Hi')], [prompt('a', 2, 'Hi!')], undefined, {
      skipped: [
        refused('@acme/flaky', reason, { kept: 'v1', fix: 'use one type for "count" everywhere it appears' }),
        refused('@acme/newcomer', 'too long', { field: '(whole prompt)', line: undefined }),
        { name: '@acme/drafty', reason: 'no published version yet', fix: 'add "@acme/drafty:draft" to follow its draft' },
      ],
    }).body;
    const section = body.slice(body.indexOf('### Skipped'), body.indexOf('### Changes'));
    expect(section.split('\n')).toEqual([
      '### Skipped',
      '',
      'The service has these prompts, but promptlock refused them, so this update leaves them out (`sync` exits 3):',
      '',
      `- \`@acme/flaky\` (\`content\` line 2): \`${reason}\`; it stays at v1, as locked before. To fix: \`use one type for "count" everywhere it appears\``,
      '- `@acme/newcomer` (`(whole prompt)`): `too long`; not added',
      '',
      '',
    ]);
  });

  it('lists the placeholders the changed prompts keep as text, and hints that are no type, in code spans', () => {
    const note: PlaceholderNote = {
      name: '@acme/a',
      keptAsText: 4,
      first: [
        { field: 'content', line: 4, text: '{{#each items}}', why: 'a block' },
        { field: 'content', line: 6, text: '{{/each}}', why: 'a block' },
        { field: 'systemPrompt', line: 1, text: '{{`x` @team}}', why: 'not a name' },
      ],
      unknownHints: [{ field: 'content', line: 3, text: '{{count:nubmer}}', hint: 'nubmer', suggestion: 'number' }],
    };
    const body = report([prompt('a', 1, 'Hi')], [prompt('a', 2, 'Hi!')], undefined, { placeholders: [note] }).body;
    expect(body).toContain('### Placeholders kept as text');
    expect(body).toContain(
      '- `@acme/a`: 4 placeholders kept as text: `{{#each items}}` (`content` line 4), `{{/each}}` (`content` line 6), ``{{`x` @team}}`` (`systemPrompt` line 1), and 1 more; `{{count:nubmer}}` (`content` line 3): `nubmer` is not a type (did you mean `number`?), so it is typed string',
    );
    expect(body.indexOf('### Placeholders kept as text')).toBeLessThan(body.indexOf('### Changes'));
  });

  it('bounds the lists: 30 skipped prompts shown, the rest counted, each reason clipped', () => {
    const skipped = Array.from({ length: 45 }, (_, i) => refused(`@acme/r${i}`, 'x'.repeat(1_000)));
    const body = report([prompt('a', 1, 'Hi')], [prompt('a', 2, 'Hi!')], undefined, { skipped }).body;
    const lines = body.split('\n').filter((line) => line.startsWith('- `@acme/r'));
    expect(lines).toHaveLength(30);
    for (const line of lines) expect(line.length).toBeLessThan(400);
    expect(body).toContain('- …and 15 more prompts: run `promptlock sync` to see them all.');
  });

  it('has no body when nothing changed, even with a prompt skipped: no pull request to open', () => {
    const same = [prompt('welcome', 1, 'Hi')];
    expect(report(same, same, undefined, { skipped: [refused('@acme/flaky', 'bad')] }).body).toBe('');
  });
});
