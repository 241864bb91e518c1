/**
 * The `placeholders` option (README, "Placeholders"): a prompt's placeholders kept as text by name,
 * or read as the SDK reads them. `sync` records the reading in the lockfile, so `generate` and
 * `check` read the prompt as the sync did; a new reading is a change of the prompt, breaking when
 * its function's parameter changes; `check` and `sync --frozen` name a config that reads otherwise.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project, folder: servedFolder } = disposables();

it('is recorded by sync, followed by generate and check, and a change of it is a breaking change', async () => {
  const folder = await servedFolder({ 'ws/report/v1.md': 'From {{start}} to {{end}}: {{#each items}}{{this}}{{/each}}' });
  const server = await serve({ dir: folder });
  const dir = await project({ baseUrl: server.url, prompts: ['@ws/report'] });
  const configPath = path.join(dir, 'prompts.config.json');
  const lockPath = path.join(dir, 'prompts.lock.json');
  const modulePath = path.join(dir, 'src/generated/prompts.ts');
  const setReading = (reading: unknown) =>
    writeFile(configPath, JSON.stringify({ baseUrl: server.url, prompts: ['@ws/report'], placeholders: { '@ws/report': reading } }));
  const lockEntry = async () => JSON.parse(await readFile(lockPath, 'utf8')).prompts['@ws/report'];

  const first = await runCliInProcess(['sync', '--json'], { cwd: dir, env });
  expect(first.code).toBe(0);
  expect(JSON.parse(first.stdout).placeholders).toEqual([
    {
      name: '@ws/report',
      keptAsText: 3,
      first: [
        { field: 'content', line: 1, text: '{{#each items}}', why: 'a template block' },
        { field: 'content', line: 1, text: '{{this}}', why: '"this" is a word of the template\'s blocks' },
        { field: 'content', line: 1, text: '{{/each}}', why: 'a template block' },
      ],
      unknownHints: [],
    },
  ]);
  expect(await lockEntry()).not.toHaveProperty('placeholders');
  const byGrammar = await readFile(modulePath, 'utf8');
  expect(byGrammar).toContain('export function report(variables: {\n  start: string;\n  end: string;\n}): RenderedPrompt {');

  // The config now keeps {{end}} as text: until a sync, generate builds what the lockfile read.
  await setReading({ text: ['end'] });
  expect((await runCliInProcess(['generate'], { cwd: dir, env: {} })).code).toBe(0);
  expect(await readFile(modulePath, 'utf8')).toBe(byGrammar);
  const check = await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} });
  expect(check.code).toBe(1);
  expect(check.stderr).toContain(
    '@ws/report is read by the grammar with "end" kept as text by the config\'s "placeholders", the lockfile read it by the grammar: run `promptlock sync`',
  );
  const frozen = await runCliInProcess(['sync', '--frozen'], { cwd: dir, env });
  expect(frozen.code).toBe(1);
  expect(frozen.stderr).toContain('The config and the lockfile disagree');

  const sync = await runCliInProcess(['sync'], { cwd: dir, env });
  expect(sync.code).toBe(0);
  expect(sync.stderr).toContain('~ @ws/report  v1 (placeholders read otherwise)  BREAKING');
  expect(sync.stderr).toContain("breaking: its function's parameter changes (variables removed: end)");
  expect(sync.stderr).toContain(
    '@ws/report: 4 placeholders kept as text: {{end}} (content line 1), {{#each items}} (content line 1), {{this}} (content line 1), and 1 more',
  );
  expect(await lockEntry()).toMatchObject({ placeholders: { text: ['end'] }, variables: [{ name: 'start', type: 'string' }] });
  expect(await readFile(modulePath, 'utf8')).toContain('content: `From ${start} to {{end}}: {{#each items}}{{this}}{{/each}}`,');
  expect((await runCliInProcess(['check'], { cwd: dir, env: {} })).code).toBe(0);

  // Read as the SDK reads it: every {{…}} is a variable.
  await setReading('sdk');
  const sdk = await runCliInProcess(['sync', '--json'], { cwd: dir, env });
  expect(sdk.code).toBe(0);
  expect(JSON.parse(sdk.stdout).breaking).toEqual([
    expect.objectContaining({ name: '@ws/report', added: ['#each items', '/each', 'end', 'this'], removed: [], retyped: [] }),
  ]);
  expect((await lockEntry()).placeholders).toBe('sdk');
  expect((await runCliInProcess(['check'], { cwd: dir, env: {} })).code).toBe(0);
});
