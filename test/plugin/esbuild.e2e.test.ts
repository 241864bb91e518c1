/**
 * The same plugin in a second real bundler, esbuild 0.27 (`promptlock/esbuild`): the module is
 * generated from the committed store when the build starts, the bundle carries only the imported
 * prompt, and a broken store fails the build with promptlock's message.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import promptlock from '../../src/plugin/esbuild.js';
import { removeDir } from '../helpers/project.js';
import { exampleTexts, makeApp } from './app.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

const MAIN = `import { globexWelcome } from './generated/prompts';\nconsole.log(globexWelcome({ name: 'Ada' }).content);\n`;

function bundle(dir: string) {
  return build({
    absWorkingDir: dir,
    entryPoints: ['src/main.ts'],
    bundle: true,
    minify: true,
    format: 'esm',
    write: false,
    logLevel: 'silent',
    plugins: [promptlock()],
  });
}

describe('promptlock/esbuild', () => {
  it("generates the module from the store at build start (root: absWorkingDir); only the imported prompt's text is bundled", async () => {
    const dir = await makeApp(MAIN);
    dirs.push(dir);
    const result = await bundle(dir);
    const text = result.outputFiles.map((file) => file.text).join('\n');
    const texts = await exampleTexts();
    expect(text).toContain('Welcome to Globex, ');
    for (const [file, first] of texts) if (file !== 'globex/welcome.json') expect(text, file).not.toContain(first);
  });

  it("fails the build with promptlock's message when a snapshot is damaged", async () => {
    const dir = await makeApp(MAIN);
    dirs.push(dir);
    await writeFile(path.join(dir, 'prompts/globex/welcome.json'), '{ "truncated": ');
    const failure = await bundle(dir).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).toMatch(/\[promptlock\] .*globex\/welcome/);
  });
});
