/**
 * The config conflict resolver `sync` uses (src/config/edit/resolve-conflict.ts), case by case:
 * JSON configs, diff3 conflicts (an entry one side removed stays removed), CRLF, and what it
 * leaves to the user with the reason. The git-made conflict through the CLI is in
 * config-merge.e2e.test.ts.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ConfigConflictError } from '../../src/config/config-conflict.js';
import { resolveConfigConflict } from '../../src/config/edit/resolve-conflict.js';
import { removeDir } from '../helpers/project.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map(removeDir)));

async function resolve(name: string, text: string) {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-resolve-'));
  dirs.push(dir);
  const file = path.join(dir, name);
  await writeFile(file, text);
  const result = await resolveConfigConflict(file).catch((error: unknown) => error);
  return { result, text: await readFile(file, 'utf8') };
}

it('a JSON config: both sides kept, sorted, commas set', async () => {
  const { result, text } = await resolve(
    'prompts.config.json',
    '{\n  "prompts": [\n    "@acme/a",\n<<<<<<< HEAD\n    "@acme/c"\n=======\n    "@acme/b"\n>>>>>>> other\n  ]\n}\n',
  );
  expect(text).toBe('{\n  "prompts": [\n    "@acme/a",\n    "@acme/b",\n    "@acme/c"\n  ]\n}\n');
  expect(result).toMatchObject({ hunks: 1, added: ['@acme/b'], duplicates: [], removed: [] });
});

it('a diff3 conflict with CRLF: an entry one side removed stays removed; a comment is kept', async () => {
  const input = [
    'export default {',
    '  prompts: [',
    '<<<<<<< HEAD',
    "    '@acme/new', // ours",
    '||||||| base',
    "    '@acme/old',",
    '=======',
    "    '@acme/old',",
    "    '@acme/theirs',",
    '>>>>>>> other',
    '  ],',
    '};',
    '',
  ].join('\r\n');
  const { result, text } = await resolve('prompts.config.ts', input);
  expect(text).toBe("export default {\r\n  prompts: [\r\n    '@acme/new', // ours\r\n    '@acme/theirs',\r\n  ],\r\n};\r\n");
  expect(result).toMatchObject({ added: ['@acme/theirs'], removed: ['@acme/old'] });
});

it.each([
  [
    'one package at two selectors',
    "export default {\n  prompts: [\n<<<<<<< HEAD\n    '@acme/a:v1',\n=======\n    '@acme/a:v2',\n>>>>>>> other\n  ],\n};\n",
    /cannot resolve: .*@acme\/a/,
  ],
  [
    'a conflict outside the prompts list',
    "export default {\n<<<<<<< HEAD\n  prompts: ['@acme/a'],\n=======\n  prompts: ['@acme/b'],\n>>>>>>> other\n};\n",
    /cannot resolve: the conflict holds more than prompt entries/,
  ],
  [
    'entries that land outside the list',
    "export default {\n  prompts: ['@acme/a'],\n<<<<<<< HEAD\n  '@acme/b',\n=======\n  '@acme/c',\n>>>>>>> other\n};\n",
    /cannot resolve: the file does not parse with both sides kept/,
  ],
])('leaves %s to the user, with the reason, and the file as it was', async (_what, input, reason) => {
  const { result, text } = await resolve('prompts.config.ts', input);
  expect(result).toBeInstanceOf(ConfigConflictError);
  expect((result as Error).message).toMatch(reason);
  expect(text).toBe(input);
});
