/**
 * Tree-shaking: an app that imports one prompt out of 1,000, bundled with esbuild, carries that
 * prompt's text and none of the others'.
 */

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateModule, generateModuleFiles } from '../../src/codegen/index.js';
import { codegenPrompt, tempDir } from './helpers.js';

const COUNT = 1_000;
const marker = (i: number) => `MARKER_${String(i).padStart(4, '0')}_`;

let dir: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  ({ dir, remove } = await tempDir('bundle'));
  const prompts = Array.from({ length: COUNT }, (_, i) =>
    codegenPrompt(`@acme/prompt-${i}`, {
      title: `${marker(i)}title`,
      content: `${marker(i)}content for {{name}}`,
      systemPrompt: `${marker(i)}system`,
      context: [{ id: `${marker(i)}ctx`, type: 'url', url: 'https://example.com', createdAt: 1 }],
    }),
  );
  await writeFile(path.join(dir, 'prompts.ts'), generateModule(prompts));
  for (const file of generateModuleFiles(prompts, { outputPath: path.join(dir, 'js/prompts.js') })) {
    await mkdir(path.dirname(file.path), { recursive: true });
    await writeFile(file.path, file.content);
  }
});
afterAll(() => remove());

async function bundle(app: string): Promise<string> {
  await writeFile(path.join(dir, 'app.ts'), app);
  const result = await build({
    entryPoints: [path.join(dir, 'app.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

const markersIn = (code: string) => [...code.matchAll(/MARKER_(\d{4})_/g)].map((m) => Number(m[1]));

it('a bundle importing one prompt out of 1,000 holds only that prompt', async () => {
  const code = await bundle(`import { prompt500 } from './prompts.js';\nconsole.log(prompt500({ name: 'Ada' }).content);\n`);
  expect(new Set(markersIn(code))).toEqual(new Set([500]));
  // The runtime it needs comes along; the map of all prompts does not.
  expect(code).toContain('is missing variable');
  expect(code).not.toContain('@acme/prompt-1"');
});

it('a bundle importing the prompts map holds all of them', async () => {
  const code = await bundle(`import { prompts } from './prompts.js';\nconsole.log(Object.keys(prompts).length);\n`);
  expect(new Set(markersIn(code)).size).toBe(COUNT);
});

it('the JavaScript output tree-shakes the same way', async () => {
  const code = await bundle(`import { prompt500 } from './js/prompts.js';\nconsole.log(prompt500({ name: 'Ada' }).content);\n`);
  expect(new Set(markersIn(code))).toEqual(new Set([500]));
  expect(code).toContain('is missing variable');
});
