/**
 * `generate`'s up-to-date check and the module's seal (src/codegen/inputs-digest.ts): a large
 * module is found up to date without being rewritten, and any change to it — in the seal, in the
 * recorded inputs, anywhere in the body, its length — makes `generate` rebuild it.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { generateModule } from '../../src/codegen/index.js';
import { generate } from '../../src/sync/generate.js';
import { codegenPrompt, tempDir, writeStore } from './helpers.js';

// Three prompts of ~600 KB.
const PROMPTS = ['a', 'b', 'c'].map((name, i) =>
  codegenPrompt(`@acme/long-${name}`, { content: `Hello {{name_${i}}}\n${`line ${i} of a long prompt\n`.repeat(24_000)}` }),
);

let dir: string;
let remove: () => Promise<void>;
let options: { lockfilePath: string; snapshotsDir: string; rootDir: string; outputPath: string };
beforeEach(async () => {
  ({ dir, remove } = await tempDir('module-seal'));
  const store = await writeStore(dir, PROMPTS);
  options = { ...store, outputPath: path.join(dir, 'src', 'generated', 'prompts.ts') };
  expect(await generate(options)).toMatchObject({ written: true, count: 3 });
});
afterEach(() => remove());

it('finds a large module up to date, and leaves it untouched', async () => {
  const before = await stat(options.outputPath);
  expect(before.size).toBeGreaterThan(1024 * 1024);
  expect(await generate(options)).toEqual({ outputPath: options.outputPath, written: false, count: 3, mismatched: [] });
  expect((await stat(options.outputPath)).mtimeMs).toBe(before.mtimeMs);
});

const edits: Array<[string, (text: string) => string]> = [
  ['one character deep in the body', (t) => `${t.slice(0, 1_500_000)}X${t.slice(1_500_001)}`],
  ['the last character', (t) => `${t.slice(0, -2)}X\n`],
  ['one character of the seal', (t) => t.replace(/; module sha256-(.)/, (_m, c: string) => `; module sha256-${c === 'A' ? 'B' : 'A'}`)],
  [
    'the recorded inputs',
    (t) => t.replace(/promptlock-inputs: sha256-(.)/, (_m, c: string) => `promptlock-inputs: sha256-${c === 'A' ? 'B' : 'A'}`),
  ],
  ['the recorded count', (t) => t.replace(/\(3 prompts\)/, '(4 prompts)')],
  ['a line appended', (t) => `${t}// more\n`],
  ['truncated', (t) => t.slice(0, t.length - 1000)],
  ['cut to its banner', (t) => t.slice(0, t.indexOf('\n', t.indexOf('promptlock-inputs')) + 1)],
];

it.each(edits)('rebuilds a module edited after it was generated: %s', async (_what, edit) => {
  const text = await readFile(options.outputPath, 'utf8');
  const edited = edit(text);
  expect(edited).not.toBe(text);
  await writeFile(options.outputPath, edited);
  expect(await generate(options)).toMatchObject({ written: true, count: 3 });
  expect(await readFile(options.outputPath, 'utf8')).toBe(generateModule(PROMPTS));
});
