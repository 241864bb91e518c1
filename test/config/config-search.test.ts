/**
 * The config search that spares loading cosmiconfig (src/config/read-config-file.ts) finds what
 * cosmiconfig finds, layout by layout: cosmiconfig, set up as promptlock sets it up, is the oracle.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cosmiconfig, defaultLoaders, type Loader } from 'cosmiconfig';
import { afterAll, expect, it } from 'vitest';
import { CONFIG_FILE_NAMES, loadPlainConfig, readConfigFile } from '../../src/config/read-config-file.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function layout(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'promptlock-search-'));
  roots.push(root);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}

/** cosmiconfig as promptlock configured it before the direct search. */
async function oracle(cwd: string): Promise<{ filepath: string; config: unknown } | undefined> {
  // The layouts' code configs are plain JavaScript, which promptlock evaluates without jiti.
  const load: Loader = async (_filepath, content) => {
    const loaded = await loadPlainConfig(content);
    if (!loaded.ok) throw new Error('not a plain config');
    return loaded.value;
  };
  const result = await cosmiconfig('promptlock', {
    searchPlaces: [...CONFIG_FILE_NAMES],
    packageProp: 'promptlock',
    searchStrategy: 'project',
    cache: false,
    loaders: { '.ts': load, '.mts': load, '.js': load, '.mjs': load, '.json': defaultLoaders['.json'] },
  }).search(cwd);
  return result ? { filepath: result.filepath, config: result.isEmpty ? {} : result.config } : undefined;
}

const ts = (prompts: string) => `export default { prompts: ['${prompts}'] };\n`;

it.each<[string, Record<string, string>, string]>([
  ['a config beside package.json', { 'package.json': '{}', 'prompts.config.ts': ts('@a/ts') }, '.'],
  [
    'the "promptlock" key of package.json first',
    { 'package.json': '{"promptlock":{"prompts":["@a/pkg"]}}', 'prompts.config.ts': ts('@a/ts') },
    '.',
  ],
  ['a null "promptlock" key skipped', { 'package.json': '{"promptlock":null}', 'prompts.config.mjs': ts('@a/mjs') }, '.'],
  [
    'the order of the search places',
    { 'package.json': '{}', 'prompts.config.json': '{"prompts":["@a/json"]}', 'prompts.config.js': ts('@a/js') },
    '.',
  ],
  ['an empty file skipped', { 'package.json': '{}', 'prompts.config.ts': '  \n', 'prompts.config.json': '{"prompts":["@a/json"]}' }, '.'],
  [
    'a config exporting nothing skipped',
    { 'package.json': '{}', 'prompts.config.ts': 'export default undefined;\n', 'prompts.config.mts': ts('@a/mts') },
    '.',
  ],
  [
    'a config exporting null skipped',
    { 'package.json': '{}', 'prompts.config.ts': 'export default null;\n', 'prompts.config.mts': ts('@a/mts') },
    '.',
  ],
  ['from a subfolder up to the project', { 'package.json': '{}', 'prompts.config.ts': ts('@a/up'), 'src/deep/x.txt': '' }, 'src/deep'],
  ['not past the nearest package.json', { 'prompts.config.ts': ts('@a/outer'), 'app/package.json': '{}', 'app/src/x.txt': '' }, 'app/src'],
  ['not past a package.yaml', { 'prompts.config.ts': ts('@a/outer'), 'app/package.yaml': 'name: x\n', 'app/src/x.txt': '' }, 'app/src'],
  ['a folder named like a config skipped', { 'package.json': '{}', 'prompts.config.ts/x': '', 'prompts.config.js': ts('@a/js') }, '.'],
  ['nothing found', { 'package.json': '{"name":"x"}', 'src/x.txt': '' }, 'src'],
])('finds what cosmiconfig finds: %s', async (_what, files, from) => {
  const cwd = path.join(layout(files), from);
  const found = await readConfigFile(cwd);
  expect(found).toEqual(await oracle(cwd));
});

it('leaves invalid JSON to cosmiconfig, whose message names the file', async () => {
  const root = layout({ 'package.json': '{}', 'prompts.config.json': '{"prompts": [}' });
  await expect(readConfigFile(root)).rejects.toThrow(/Could not load config file .*prompts\.config\.json:1:\d+/);
  const broken = layout({ 'package.json': '{"promptlock": ' });
  await expect(readConfigFile(broken)).rejects.toThrow(/Could not load config file .*package\.json/);
});
