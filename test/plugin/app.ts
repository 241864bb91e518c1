/**
 * A throw-away bundler app whose promptlock store is a copy of the committed one in examples/app
 * (lockfile + snapshots, no generated module yet: the plugin writes it at build start).
 */
import { cp, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const EXAMPLE = fileURLToPath(new URL('../../examples/app/', import.meta.url));
export const MODULE = 'src/generated/prompts.ts';

/** First line of every prompt's content in the example store, by file (`acme/welcome.json`). */
export async function exampleTexts(): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const workspace of await readdir(path.join(EXAMPLE, 'prompts'))) {
    for (const file of await readdir(path.join(EXAMPLE, 'prompts', workspace))) {
      if (!file.endsWith('.json')) continue;
      const snapshot = JSON.parse(await readFile(path.join(EXAMPLE, 'prompts', workspace, file), 'utf8')) as { content: string | string[] };
      const content = Array.isArray(snapshot.content) ? snapshot.content.join('\n') : snapshot.content;
      texts.set(`${workspace}/${file}`, content.split('\n')[0]!);
    }
  }
  return texts;
}

/**
 * An app in a temp folder: index.html, `src/main.ts` (or `options.main`) holding `main`, and the
 * example store generating `options.output` (default MODULE; a `.js` one for bundlers without a
 * TypeScript loader).
 */
export async function makeApp(main: string, options: { output?: string; main?: string } = {}): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-plugin-'));
  await cp(path.join(EXAMPLE, 'prompts'), path.join(dir, 'prompts'), { recursive: true });
  await cp(path.join(EXAMPLE, 'prompts.lock.json'), path.join(dir, 'prompts.lock.json'));
  await writeFile(
    path.join(dir, 'prompts.config.json'),
    `${JSON.stringify({ prompts: ['@acme/*', '@acme/onboarding:v3', '@acme/code-review:draft', '@globex/welcome'], output: options.output ?? MODULE }, null, 2)}\n`,
  );
  await writeFile(path.join(dir, 'package.json'), '{ "name": "plugin-test-app", "private": true, "type": "module" }\n');
  await writeFile(
    path.join(dir, 'index.html'),
    '<!doctype html>\n<div id="app"></div>\n<script type="module" src="/src/main.ts"></script>\n',
  );
  await mkdir(path.join(dir, 'src'), { recursive: true });
  await writeFile(path.join(dir, options.main ?? 'src/main.ts'), main);
  return dir;
}
