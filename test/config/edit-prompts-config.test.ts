import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPromptToConfig, removePromptFromConfig } from '../../src/config/edit/index.js';
import { ConfigError } from '../../src/errors.js';

const FIXTURES = new URL('../fixtures/init/', import.meta.url).pathname;
// UPDATE_GOLDEN=1 rewrites expected.ts from the current output; review the diff before committing.
const UPDATE = process.env.UPDATE_GOLDEN === '1';

interface GoldenCase {
  command: 'add' | 'remove';
  name: string;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'promptlock-edit-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cases = (await readdir(FIXTURES, { withFileTypes: true }))
  .filter((entry) => entry.isDirectory() && /^(add|remove)-/.test(entry.name))
  .map((entry) => entry.name)
  .sort();

describe('golden edits of prompts.config.ts', () => {
  it.each(cases)('%s', async (name) => {
    const spec = JSON.parse(await readFile(join(FIXTURES, name, 'case.json'), 'utf8')) as GoldenCase;
    const configPath = join(dir, `${name}.prompts.config.ts`);
    await copyFile(join(FIXTURES, name, 'input.ts'), configPath);
    const edit = spec.command === 'add' ? addPromptToConfig : removePromptFromConfig;
    const result = await edit(configPath, spec.name);
    const actual = await readFile(configPath, 'utf8');
    if (UPDATE) await writeFile(join(FIXTURES, name, 'expected.ts'), actual);
    expect(actual).toBe(await readFile(join(FIXTURES, name, 'expected.ts'), 'utf8'));
    const input = await readFile(join(FIXTURES, name, 'input.ts'), 'utf8');
    expect(result.changed).toBe(actual !== input);
    // Applying the same add again is a no-op: the edit found its own output.
    if (spec.command === 'add') expect((await addPromptToConfig(configPath, spec.name)).changed).toBe(false);
  });
});

describe('what an edit reports', () => {
  it.each([
    ['add-single-line', { action: 'added', entry: '@acme/billing' }],
    ['add-replace-selector', { action: 'replaced', entry: '@acme/onboarding:v4', previous: '@acme/onboarding:v3' }],
    ['add-already-present', { action: 'unchanged', entry: '@acme/support-reply', changed: false }],
    ['remove-by-package-name', { action: 'removed', entry: '@acme/onboarding:v3' }],
  ] as const)('%s', async (name, want) => {
    const spec = JSON.parse(await readFile(join(FIXTURES, name, 'case.json'), 'utf8')) as GoldenCase;
    const configPath = join(dir, `report-${name}.ts`);
    await copyFile(join(FIXTURES, name, 'input.ts'), configPath);
    const edit = spec.command === 'add' ? addPromptToConfig : removePromptFromConfig;
    expect(await edit(configPath, spec.name)).toEqual({ changed: true, ...want, configPath });
  });
});

const LIST = `import { defineConfig } from 'promptlock';
export default defineConfig({
  prompts: ['@acme/onboarding:v3', '@acme/onboarding:draft', '@acme/billing'],
});
`;

describe('refused edits', () => {
  it.each([
    [
      'remove a name not in the list',
      'remove',
      LIST,
      '@acme/support-reply',
      '"@acme/support-reply" is not in the prompts list of prompts.config.ts.',
    ],
    [
      'remove with a selector the list lacks',
      'remove',
      LIST,
      '@acme/billing:v2',
      '"@acme/billing:v2" is not in the prompts list of prompts.config.ts.',
    ],
    [
      'remove an ambiguous package name',
      'remove',
      LIST,
      '@acme/onboarding',
      '"@acme/onboarding" matches several entries of prompts.config.ts: "@acme/onboarding:v3", "@acme/onboarding:draft".',
    ],
    [
      'remove the last entry',
      'remove',
      `export default { prompts: ['@acme/billing'] };\n`,
      '@acme/billing',
      'Not removing "@acme/billing": it is the last entry of the prompts list in prompts.config.ts, and an empty list means every prompt the service lists.',
    ],
    [
      'remove without a prompts option',
      'remove',
      `export default {};\n`,
      '@acme/billing',
      'prompts.config.ts has no prompts option, so "@acme/billing" is not in it.',
    ],
    [
      'add a package listed twice',
      'add',
      LIST,
      '@acme/onboarding:v4',
      'Cannot add "@acme/onboarding:v4": prompts.config.ts already lists @acme/onboarding several times ("@acme/onboarding:v3", "@acme/onboarding:draft").',
    ],
    [
      'add an invalid name',
      'add',
      LIST,
      'Acme/Onboarding',
      'Invalid prompt name "Acme/Onboarding": expected @workspace/package[:vN|latest|draft] or @workspace/*.',
    ],
    [
      'add with a bad selector',
      'add',
      LIST,
      '@acme/billing:v',
      'Invalid prompt name "@acme/billing:v": expected @workspace/package[:vN|latest|draft] or @workspace/*.',
    ],
    [
      'prompts is a variable',
      'add',
      `const prompts = ['@a/b'];\nexport default { prompts };\n`,
      '@acme/billing',
      'The prompts option in prompts.config.ts is a variable, not a list promptlock can edit.',
    ],
    [
      'prompts is computed',
      'add',
      `export default { prompts: names() };\n`,
      '@acme/billing',
      'The prompts option in prompts.config.ts is not a list literal promptlock can edit.',
    ],
    ['no config object', 'add', `export default load();\n`, '@acme/billing', 'Cannot find the config object in prompts.config.ts.'],
  ])('%s', async (_title, command, input, name, message) => {
    const configPath = join(dir, 'refused', 'prompts.config.ts');
    await rm(join(dir, 'refused'), { recursive: true, force: true });
    await mkdir(join(dir, 'refused'));
    await writeFile(configPath, input);
    const edit = command === 'add' ? addPromptToConfig : removePromptFromConfig;
    const error = await edit(configPath, name).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(message);
    expect((error as ConfigError).hint).toBeTruthy();
    expect(await readFile(configPath, 'utf8')).toBe(input);
  });
});

describe('JSON configs', () => {
  it('edits prompts.config.json keeping its indentation and final newline', async () => {
    const configPath = join(dir, 'prompts.config.json');
    await writeFile(configPath, '{\n\t"prompts": ["@acme/onboarding"],\n\t"concurrency": 4\n}\n');
    expect((await addPromptToConfig(configPath, '@acme/billing')).action).toBe('added');
    expect(await readFile(configPath, 'utf8')).toBe(
      '{\n\t"prompts": [\n\t\t"@acme/onboarding",\n\t\t"@acme/billing"\n\t],\n\t"concurrency": 4\n}\n',
    );
    expect((await removePromptFromConfig(configPath, '@acme/onboarding')).action).toBe('removed');
    expect(JSON.parse(await readFile(configPath, 'utf8'))).toEqual({ prompts: ['@acme/billing'], concurrency: 4 });
  });

  it('edits the "promptlock" key of package.json, adding a prompts list when missing', async () => {
    const packageDir = join(dir, 'pkg');
    await mkdir(packageDir, { recursive: true });
    const configPath = join(packageDir, 'package.json');
    await writeFile(configPath, '{\n  "name": "app",\n  "promptlock": {\n    "output": "gen.ts"\n  }\n}');
    expect((await addPromptToConfig(configPath, '@acme/*')).action).toBe('added');
    expect(await readFile(configPath, 'utf8')).toBe(
      '{\n  "name": "app",\n  "promptlock": {\n    "output": "gen.ts",\n    "prompts": [\n      "@acme/*"\n    ]\n  }\n}',
    );
    expect((await addPromptToConfig(configPath, '@acme/*:draft')).action).toBe('replaced');
    expect(JSON.parse(await readFile(configPath, 'utf8')).promptlock.prompts).toEqual(['@acme/*:draft']);
  });

  it('says where a JSON config that is not valid JSON is wrong, by line and column, and leaves it as it was', async () => {
    const configPath = join(dir, 'broken', 'prompts.config.json');
    await mkdir(join(dir, 'broken'), { recursive: true });
    const text = '{\n  "prompts": [\n    "@acme/onboarding",\n  ]\n}\n';
    await writeFile(configPath, text);
    await expect(addPromptToConfig(configPath, '@acme/billing')).rejects.toThrow(
      'prompts.config.json is not valid JSON at line 4, column 3: value expected.',
    );
    expect(await readFile(configPath, 'utf8')).toBe(text);
  });

  it('refuses a file type it cannot edit', async () => {
    const configPath = join(dir, 'prompts.config.yaml');
    await writeFile(configPath, 'prompts: []\n');
    await expect(addPromptToConfig(configPath, '@acme/billing')).rejects.toThrow(
      'promptlock cannot edit prompts.config.yaml: it edits .ts, .mts, .js, .mjs and .json configs.',
    );
  });
});

describe('other module shapes', () => {
  it.each([
    [
      'CRLF line endings',
      'prompts.config.ts',
      "export default {\r\n  prompts: [\r\n    '@acme/onboarding', // first\r\n    '@acme/billing',\r\n  ],\r\n};\r\n",
      "export default {\r\n  prompts: [\r\n    '@acme/onboarding', // first\r\n    '@acme/billing',\r\n    '@acme/support-reply',\r\n  ],\r\n};\r\n",
      "export default {\r\n  prompts: [\r\n    '@acme/billing',\r\n    '@acme/support-reply',\r\n  ],\r\n};\r\n",
    ],
    [
      'module.exports in a .js file',
      'prompts.config.js',
      "module.exports = { prompts: ['@acme/onboarding', '@acme/billing'] };\n",
      "module.exports = { prompts: ['@acme/onboarding', '@acme/billing', '@acme/support-reply'] };\n",
      "module.exports = { prompts: ['@acme/billing', '@acme/support-reply'] };\n",
    ],
  ])('%s', async (_title, file, input, added, removed) => {
    const configPath = join(dir, 'shapes', file);
    await mkdir(join(dir, 'shapes'), { recursive: true });
    await writeFile(configPath, input);
    await addPromptToConfig(configPath, '@acme/support-reply');
    expect(await readFile(configPath, 'utf8')).toBe(added);
    await removePromptFromConfig(configPath, '@acme/onboarding');
    expect(await readFile(configPath, 'utf8')).toBe(removed);
  });
});
