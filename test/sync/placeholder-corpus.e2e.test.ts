/**
 * The dialect corpus (test/fixtures/placeholder-corpus/corpus/): prompts as real collections write
 * them (handlebars and dotprompt blocks, comments, partials and helpers, jinja loops and filters, JSX
 * style objects, JSON examples in the f-string brace escape, Semantic Kernel variables and calls, Go
 * templates, scanner DSL calls, GitHub expressions, a 384-character comment, a coding agent's
 * `<<<<<<< ` edit format, conflicting hints, `{{__proto__}}`, a typo in a hint, and a 200 KB
 * system prompt mixing all of them with Japanese and Chinese text and a variable named in kanji), served by
 * `promptlock serve` and synced by the built CLI in one process, then checked by it. In this
 * process: each function's parameter type is exactly the variables its author meant (the real
 * type checker), and each renders what `serve` answers for the same values.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { stringifyValue } from '../../src/template/index.js';
import type { Prompt } from '../../src/types.js';
import { compileStrict, importModule, tempDir } from '../codegen/helpers.js';
import { runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { copyDir } from '../helpers/project.js';

const CORPUS = fileURLToPath(new URL('../fixtures/placeholder-corpus/', import.meta.url));
const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project, folder } = disposables();

/**
 * One block of a large agent's system prompt: handlebars, jinja, a JSON example, CJK prose and three
 * variables (`名前` twice, `file_path`). Repeated to 200 KB with 10 placeholders a block, under the
 * default limit of 2,000.
 */
const block = (i: number) =>
  [
    `### Section ${i}`,
    '{{#each tools}}- {{this.name}}: {{this.description}}{{/each}}',
    'When the user ({{名前}}) asks about {{file_path}}, answer in JSON like {{"tool": "search", "query": "…"}}.',
    '{% for m in messages %}{{ m.role }}: {{ m.content|trim }}{% endfor %}',
    `日本語の説明：このツールは{{名前}}さんのために働きます。中文说明：请仔细阅读每一个步骤。${'Follow the plan, cite the file, keep edits small. '.repeat(20)}`,
    '',
  ].join('\n');
const BLOCKS = 150;
// No final newline: the folder format drops one (docs/local-service.md), and the test compares whole texts.
const LARGE_SYSTEM = Array.from({ length: BLOCKS }, (_, i) => block(i))
  .join('\n')
  .trimEnd();

/** Each prompt's function and the parameter its author meant (`[]`: it takes none). */
const MEANT: Record<string, { fn: string; parameter: string }> = {
  '@corpus/coding-agent': { fn: 'codingAgent', parameter: '{ file_path: string }' },
  '@corpus/date-range': { fn: 'dateRange', parameter: "{ start: string; end: string; 'service-name': string }" },
  '@corpus/dotprompt-story': { fn: 'dotpromptStory', parameter: '{ age: number; history: string; topic: string }' },
  '@corpus/fstring-escapes': { fn: 'fstringEscapes', parameter: '{ document: string }' },
  '@corpus/go-report': { fn: 'goReport', parameter: '{ team: string }' },
  '@corpus/intent-classifier': { fn: 'intentClassifier', parameter: '{ ticket: string }' },
  '@corpus/jinja-chat': { fn: 'jinjaChat', parameter: '{ user_question: string }' },
  '@corpus/large-agent': { fn: 'largeAgent', parameter: '{ task: string; 名前: string; file_path: string }' },
  '@corpus/long-comment': { fn: 'longComment', parameter: '{ reader_name: string; bullets: number }' },
  // `{{BaseURL}}` is a word the grammar cannot tell from a variable: the config keeps it as text.
  '@corpus/nuclei-writer': { fn: 'nucleiWriter', parameter: '{ vulnerability: string }' },
  '@corpus/proto': { fn: 'proto', parameter: '{ name: string; constructor: string }' },
  // Read as the SDK reads it (the config says so): every {{…}} is a variable.
  '@corpus/sdk-read': { fn: 'sdkRead', parameter: "{ 'user.name': string; 'plan-tier': string; 'renewal date': string }" },
  '@corpus/sk-summarize': { fn: 'skSummarize', parameter: '{ $input: string; $user_name: string }' },
  '@corpus/support-reply': {
    fn: 'supportReply',
    parameter: '{ customer_name: string; count: number; topic: string; urgent: boolean; company: string; signature: string }',
  },
  '@corpus/translated': { fn: 'translated', parameter: '{ nombre: string; empresa: string; 名前: string; 日期: string }' },
  '@corpus/typo-hint': { fn: 'typoHint', parameter: '{ person: string; count: string; due: string }' },
  '@corpus/ui-generator': { fn: 'uiGenerator', parameter: '{ component_name: string; props: unknown[] }' },
  '@corpus/workflow-writer': { fn: 'workflowWriter', parameter: '{ repo_name: string; budget: number }' },
};

type RunningServer = Awaited<ReturnType<typeof serve>>;
let server: RunningServer;
let dir: string;
let sync: Awaited<ReturnType<typeof runBuiltCli>>;
let check: Awaited<ReturnType<typeof runBuiltCli>>;
let source: string;

beforeAll(async () => {
  // The corpus as committed, and the large agent written beside it.
  const served = await folder({});
  await copyDir(path.join(CORPUS, 'corpus'), path.join(served, 'corpus'));
  await mkdir(path.join(served, 'corpus/large-agent/v1'), { recursive: true });
  await writeFile(path.join(served, 'corpus/large-agent/prompt.json'), JSON.stringify({ title: 'Large agent', tags: ['corpus'] }));
  await writeFile(path.join(served, 'corpus/large-agent/v1/content.md'), 'Task: {{task // what to do}}\n');
  await writeFile(path.join(served, 'corpus/large-agent/v1/system.md'), LARGE_SYSTEM);
  expect(Buffer.byteLength(LARGE_SYSTEM)).toBeGreaterThan(200_000);
  server = await serve({ dir: served });
  dir = await project({
    baseUrl: server.url,
    prompts: ['@corpus/*'],
    placeholders: { '@corpus/sdk-read': 'sdk', '@corpus/nuclei-writer': { text: ['BaseURL'] } },
  });
  sync = await runBuiltCli(['sync', '--json'], { cwd: dir, env });
  // The module's type check is the test's own, below, with the parameters' types.
  check = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} });
  source = await readFile(path.join(dir, 'src/generated/prompts.ts'), 'utf8');
}, 120_000);

it('syncs every prompt but the refused one, exits 3, and check agrees with what it wrote', () => {
  expect(sync.code, sync.stderr).toBe(3);
  const summary = JSON.parse(sync.stdout);
  expect(summary.added.map((a: { name: string }) => a.name)).toEqual(Object.keys(MEANT));
  expect(summary.skipped).toEqual([
    expect.objectContaining({ name: '@corpus/conflicting-hints', refused: true, field: 'systemPrompt', line: 1 }),
  ]);
  const kept = Object.fromEntries(summary.placeholders.map((n: { name: string; keptAsText: number }) => [n.name, n.keptAsText]));
  expect(kept).toEqual({
    '@corpus/date-range': 1,
    '@corpus/dotprompt-story': 11,
    '@corpus/fstring-escapes': 1,
    '@corpus/go-report': 8,
    '@corpus/intent-classifier': 2,
    '@corpus/jinja-chat': 4,
    '@corpus/large-agent': 7 * BLOCKS,
    '@corpus/long-comment': 1,
    '@corpus/nuclei-writer': 3,
    '@corpus/proto': 1,
    '@corpus/sk-summarize': 2,
    '@corpus/typo-hint': 0,
    '@corpus/ui-generator': 3,
    '@corpus/workflow-writer': 3,
  });
  expect(check.code, check.stderr).toBe(0);
  expect(check.stderr).toContain(
    "@corpus/ui-generator: 3 placeholders kept as text: {{ width: 200, height: 200 }} (content line 4), {{ color: `var(--accent)` }} (content line 5), {{display: 'block'}} (content line 6)",
  );
  expect(check.stderr).toContain(
    'warning: @corpus/typo-hint: {{count:nubmer // how many}} (content line 1): "nubmer" is not a type (did you mean "number"?), so it is typed string; the types are string, str, text, number, int, integer, boolean, bool, array, list, object, dict',
  );
});

it("gives each function exactly the parameter its author meant (the type checker's word)", () => {
  const lines = [
    "import * as m from './prompts';",
    'type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;',
    'type Expect<T extends true> = T;',
    'export type Checks = [',
    ...Object.values(MEANT).map(({ fn, parameter }) => `  Expect<Equal<Parameters<typeof m.${fn}>, [variables: ${parameter}]>>,`),
    "  Expect<Equal<'conflictingHints' extends keyof typeof m ? 1 : 0, 0>>,",
    '];',
  ];
  // One program, and the check can fail: a parameter the author did not mean is a type error.
  const wrong = lines.join('\n').replace('{ team: string }', '{ team: string; end: string }');
  const errors = compileStrict({ '/prompts.ts': source, '/app.ts': `${lines.join('\n')}\n`, '/wrong.ts': wrong });
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(/^\/wrong\.ts:\d+ - TS2344/);
});

it('renders each prompt exactly as serve answers for the same values, kept text as written', async () => {
  const tmp = await tempDir('corpus');
  try {
    const mod = await importModule<Record<string, (v?: unknown) => { content: string }>>(source, tmp.dir);
    const lock = JSON.parse(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8'));
    for (const [name, { fn }] of Object.entries(MEANT)) {
      const variables: Array<{ name: string; type: string }> = lock.prompts[name].variables;
      // Values that would break naive code: backticks, `${`, braces, a `{{…}}` of their own.
      const values = Object.fromEntries(
        variables.map((v, i) => [
          v.name,
          v.type === 'number'
            ? i + 0.5
            : v.type === 'boolean'
              ? true
              : v.type === 'array'
                ? ['a', '`${b}`']
                : `«${v.name}» \`\${x}\` {{end}} ${i}`,
        ]),
      );
      const sent = Object.fromEntries(Object.entries(values).map(([key, value]) => [key, stringifyValue(value)]));
      const response = await fetch(`${server.url}/v1/prompts/get`, {
        method: 'POST',
        headers: { authorization: `Bearer ${LOCAL_TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ package_name: name, variables: sent }),
      });
      const served = (await response.json()) as Prompt;
      const rendered = mod[fn]!(variables.length === 0 ? undefined : values) as { content: string; systemPrompt?: string | null };
      expect(rendered.content, name).toBe(served.content);
      // The service fills only `content`; the function fills every text's variables and keeps the rest
      // as written: in 200 KB of handlebars, jinja, JSON and CJK, only the two variables change.
      if (name === '@corpus/large-agent') {
        const filled = LARGE_SYSTEM.replaceAll('{{名前}}', String(values['名前'])).replaceAll('{{file_path}}', String(values.file_path));
        expect(rendered.systemPrompt === filled, 'the large system prompt, filled').toBe(true);
        expect(served.systemPrompt).toBe(LARGE_SYSTEM);
      }
    }
    // Kept text is the author's text: the edit format of the coding agent, the JSX, the JSON.
    const agent = mod.codingAgent!({ file_path: 'app.py' }).content;
    expect(agent).toContain('\n<<<<<<< SEARCH\nfrom flask import Flask\n=======\n');
    expect(mod.uiGenerator!({ component_name: 'Card', props: [] }).content).toContain(
      '<span style={{ color: `var(--accent)` }}>{`${label}`}</span>',
    );
  } finally {
    await tmp.remove();
  }
});
