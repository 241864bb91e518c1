/**
 * Finding and loading the config through cosmiconfig and jiti (src/config/read-config-file.ts):
 * the search order and where it stops, every kind of config module, errors at their line, and no
 * cache of code: a planted transpiled-config file is never run (issue 19, item 17).
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { readConfigFile } from '../../src/config/read-config-file.js';
import { VERSION } from '../../src/version.js';
import { removeDir } from '../helpers/project.js';

const TEMPLATE = fileURLToPath(new URL('../../templates/prompts.config.ts', import.meta.url));
const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeDir)));

function layout(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'promptlock-search-')));
  roots.push(root);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}

const ts = (prompts: string) => `export default { prompts: ['${prompts}'] };\n`;

it.each<[string, Record<string, string>, string, string | undefined, string | undefined]>([
  ['a config beside package.json', { 'package.json': '{}', 'prompts.config.ts': ts('@a/ts') }, '.', 'prompts.config.ts', '@a/ts'],
  [
    'the "promptlock" key of package.json first',
    { 'package.json': '{"promptlock":{"prompts":["@a/pkg"]}}', 'prompts.config.ts': ts('@a/ts') },
    '.',
    'package.json',
    '@a/pkg',
  ],
  [
    'a null "promptlock" key skipped',
    { 'package.json': '{"promptlock":null}', 'prompts.config.mjs': ts('@a/mjs') },
    '.',
    'prompts.config.mjs',
    '@a/mjs',
  ],
  [
    'the order of the search places',
    { 'package.json': '{}', 'prompts.config.json': '{"prompts":["@a/json"]}', 'prompts.config.js': ts('@a/js') },
    '.',
    'prompts.config.js',
    '@a/js',
  ],
  [
    'an empty file skipped',
    { 'package.json': '{}', 'prompts.config.ts': '  \n', 'prompts.config.json': '{"prompts":["@a/json"]}' },
    '.',
    'prompts.config.json',
    '@a/json',
  ],
  [
    'a config exporting nothing skipped',
    { 'package.json': '{}', 'prompts.config.ts': 'export default undefined;\n', 'prompts.config.mts': ts('@a/mts') },
    '.',
    'prompts.config.mts',
    '@a/mts',
  ],
  [
    'a config exporting null skipped',
    { 'package.json': '{}', 'prompts.config.ts': 'export default null;\n', 'prompts.config.mts': ts('@a/mts') },
    '.',
    'prompts.config.mts',
    '@a/mts',
  ],
  [
    'from a subfolder up to the project',
    { 'package.json': '{}', 'prompts.config.ts': ts('@a/up'), 'src/deep/x.txt': '' },
    'src/deep',
    'prompts.config.ts',
    '@a/up',
  ],
  [
    'not past the nearest package.json',
    { 'prompts.config.ts': ts('@a/outer'), 'app/package.json': '{}', 'app/src/x.txt': '' },
    'app/src',
    undefined,
    undefined,
  ],
  [
    'not past a package.yaml',
    { 'prompts.config.ts': ts('@a/outer'), 'app/package.yaml': 'name: x\n', 'app/src/x.txt': '' },
    'app/src',
    undefined,
    undefined,
  ],
  [
    'a folder named like a config skipped',
    { 'package.json': '{}', 'prompts.config.ts/x': '', 'prompts.config.js': ts('@a/js') },
    '.',
    'prompts.config.js',
    '@a/js',
  ],
  ['nothing found', { 'package.json': '{"name":"x"}', 'src/x.txt': '' }, 'src', undefined, undefined],
])('the search: %s', async (_what, files, from, file, prompt) => {
  const root = layout(files);
  const found = await readConfigFile(path.join(root, from));
  expect(found && { file: path.relative(root, found.filepath), prompts: (found.config as { prompts: string[] }).prompts }).toEqual(
    file === undefined ? undefined : { file, prompts: [prompt] },
  );
});

it.each<[string, string, Record<string, string>, unknown]>([
  ['the init template', '', {}, { prompts: [] }],
  [
    'TypeScript syntax and an import of another .ts file',
    `import { defineConfig } from 'promptlock';\nimport { prompts } from './list.ts';\nconst extra: string = '@acme/b';\nexport default defineConfig({ prompts: [...prompts, extra] });\n`,
    { 'list.ts': `export const prompts: string[] = ['@acme/a'];\n` },
    { prompts: ['@acme/a', '@acme/b'] },
  ],
  ['import.meta', `export default { prompts: [import.meta.url ? '@acme/a' : ''] };\n`, {}, { prompts: ['@acme/a'] }],
  ['an async function', 'export default async () => ({ prompts: [await Promise.resolve("@acme/a")] });\n', {}, { prompts: ['@acme/a'] }],
  ['a named export too', `export const prompts = ['@acme/a'];\nexport default { prompts };\n`, {}, { prompts: ['@acme/a'] }],
])('loads a config module: %s', async (_what, text, others, want) => {
  const root = layout({ 'package.json': '{"type":"module"}', ...others, 'prompts.config.ts': text || (await readFile(TEMPLATE, 'utf8')) });
  expect((await readConfigFile(root))?.config).toEqual(want);
});

it('reports an error thrown by a config, and invalid JSON, at their line', async () => {
  const thrown = layout({
    'package.json': '{}',
    'prompts.config.ts': `const a = 1;\n\nthrow new Error('no prompts today');\nexport default {};\n`,
  });
  await expect(readConfigFile(thrown)).rejects.toThrow(/prompts\.config\.ts:3:\d+: no prompts today/);
  const json = layout({ 'package.json': '{}', 'prompts.config.json': '{"prompts": [}' });
  await expect(readConfigFile(json)).rejects.toThrow(/Could not load config file .*prompts\.config\.json:1:\d+/);
  const broken = layout({ 'package.json': '{"promptlock": ' });
  await expect(readConfigFile(broken)).rejects.toThrow(/Could not load config file .*package\.json/);
});

it('keeps no cache of code: a transpiled config planted where the old cache lived is never run', async () => {
  const text = `import { defineConfig } from 'promptlock';\n\nconst prompts: string[] = ['@acme/a'];\n\nexport default defineConfig({ prompts });\n`;
  const root = layout({ 'package.json': '{"type":"module"}', 'prompts.config.ts': text });
  const cacheHome = await mkdtemp(path.join(os.tmpdir(), 'promptlock-cache-home-'));
  roots.push(cacheHome);
  const filepath = path.join(root, 'prompts.config.ts');
  const key = `// promptlock config cache 1 ${createHash('sha256').update(`${VERSION}\0${filepath}\0${text}`).digest('base64url')}`;
  const name = `${createHash('sha256').update(filepath).digest('base64url')}.js`;
  mkdirSync(path.join(cacheHome, 'promptlock', 'config'), { recursive: true });
  writeFileSync(path.join(cacheHome, 'promptlock', 'config', name), `${key}\nexports.default = { prompts: ['@evil/x'] };`);
  const previous = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = cacheHome;
  try {
    expect((await loadConfig({ cwd: root, env: {} })).prompts).toEqual(['@acme/a']);
  } finally {
    if (previous === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = previous;
  }
  // Nothing was written beside the planted file, nor into the project.
  expect(readdirSync(path.join(cacheHome, 'promptlock', 'config'))).toEqual([name]);
  expect(readdirSync(root).sort()).toEqual(['package.json', 'prompts.config.ts']);
});

/** Runs `body` with XDG_CACHE_HOME set to `dir`. */
async function withCacheHome<T>(dir: string, body: () => Promise<T>): Promise<T> {
  const previous = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = dir;
  try {
    return await body();
  } finally {
    if (previous === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = previous;
  }
}

it("keeps jiti's transpiled code in a private folder of the user's, never in the project", async () => {
  const text = `const prompts: string[] = ['@acme/a'];\nexport default { prompts };\n`;
  const root = layout({ 'package.json': '{"type":"module"}', 'prompts.config.ts': text, 'node_modules/.keep': '' });
  const cacheHome = await mkdtemp(path.join(os.tmpdir(), 'promptlock-cache-home-'));
  roots.push(cacheHome);
  expect(await withCacheHome(cacheHome, async () => (await readConfigFile(root))?.config)).toEqual({ prompts: ['@acme/a'] });
  const dir = path.join(cacheHome, 'promptlock', 'jiti');
  expect(readdirSync(dir)).toHaveLength(1);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  expect(readdirSync(path.join(root, 'node_modules'))).toEqual(['.keep']);
  // A cache folder others may write into is not used: nothing is cached then.
  const shared = await mkdtemp(path.join(os.tmpdir(), 'promptlock-cache-shared-'));
  roots.push(shared);
  mkdirSync(path.join(shared, 'promptlock', 'jiti'), { recursive: true, mode: 0o777 });
  chmodSync(path.join(shared, 'promptlock', 'jiti'), 0o777);
  expect(await withCacheHome(shared, async () => (await readConfigFile(root))?.config)).toEqual({ prompts: ['@acme/a'] });
  expect(readdirSync(path.join(shared, 'promptlock', 'jiti'))).toEqual([]);
});

it('never runs transpiled code planted in the project (a committed node_modules/.cache/jiti)', async () => {
  const text = `const prompts: string[] = ['@acme/a'];\nexport default { prompts };\n`;
  const root = layout({ 'package.json': '{"type":"module"}', 'prompts.config.ts': text, 'node_modules/.keep': '' });
  const planted = path.join(root, 'node_modules', '.cache', 'jiti');
  // The file jiti would accept there for this config, with its code swapped for an attacker's.
  const { createJiti } = await import('jiti');
  await createJiti(path.join(root, 'prompts.config.ts'), { fsCache: planted, moduleCache: false }).import(
    path.join(root, 'prompts.config.ts'),
  );
  const [name] = readdirSync(planted);
  const cached = readFileSync(path.join(planted, name!), 'utf8');
  writeFileSync(path.join(planted, name!), cached.replace("'@acme/a'", "'@evil/x'"));
  const cacheHome = await mkdtemp(path.join(os.tmpdir(), 'promptlock-cache-home-'));
  roots.push(cacheHome);
  expect(await withCacheHome(cacheHome, async () => (await readConfigFile(root))?.config)).toEqual({ prompts: ['@acme/a'] });
});
