import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';
import { DEFAULT_LIMITS } from '../../src/limits.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A throwaway project: a package.json (so the search stops here) plus the given files. */
function project(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'promptlock-config-'));
  roots.push(root);
  const all = { 'package.json': '{"name":"demo","type":"module"}', ...files };
  for (const [name, text] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}

const KEY = 'sk_live_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2';

describe('loadConfig: finding and loading', () => {
  it('refuses to run without a config (exit 2), and applies every default to an empty one', async () => {
    const root = project({});
    const error = (await loadConfig({ cwd: root, env: {} }).catch((e: unknown) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(`no prompts.config.* found from ${root}; run \`promptlock init\`.`);
    writeFileSync(path.join(root, 'prompts.config.json'), '{}');
    const config = await loadConfig({ cwd: root, env: {} });
    expect(config).toEqual({
      configPath: path.join(root, 'prompts.config.json'),
      rootDir: root,
      baseUrl: 'https://api.baytos.ai',
      prompts: [],
      workspace: undefined,
      snapshotsDir: path.join(root, 'prompts'),
      lockfilePath: path.join(root, 'prompts.lock.json'),
      outputPath: path.join(root, 'src/generated/prompts.ts'),
      omit: [],
      concurrency: 16,
      watchInterval: 30,
      contextFiles: false,
      timeout: 30000,
      limits: { ...DEFAULT_LIMITS },
      placeholders: {},
      apiKey: undefined,
    });
  });

  it('accepts limits and names a wrong one by its path', async () => {
    const ok = await loadConfig({ cwd: project({ 'prompts.config.json': JSON.stringify({ limits: { listPages: 5 } }) }), env: {} });
    expect(ok.limits).toEqual({ ...DEFAULT_LIMITS, listPages: 5 });
    const root = project({ 'prompts.config.json': JSON.stringify({ limits: { listPages: 0, nope: 1 } }) });
    await expect(loadConfig({ cwd: root, env: {} })).rejects.toThrow(
      /Invalid value for option "limits\.listPages" in prompts\.config\.json: expected a positive integer, got 0/,
    );
  });

  it('accepts placeholders by package name or workspace glob, and names a wrong key or value by its path', async () => {
    const placeholders = { '@acme/ui': { text: ['end', 'item'] }, '@acme/*': 'sdk' };
    const ok = await loadConfig({ cwd: project({ 'prompts.config.json': JSON.stringify({ placeholders }) }), env: {} });
    expect(ok.placeholders).toEqual(placeholders);
    const bad = { 'acme/ui': 'sdk', '@acme/x': 'SDK', '@acme/y': { text: [] } };
    await expect(loadConfig({ cwd: project({ 'prompts.config.json': JSON.stringify({ placeholders: bad }) }), env: {} })).rejects.toThrow(
      [
        'Invalid value for option "placeholders.acme/ui" in prompts.config.json: expected a package name ("@workspace/package") or a workspace glob ("@workspace/*"), got "acme/ui".',
        'Invalid value for option "placeholders.@acme/x" in prompts.config.json: expected "sdk", or { text: [placeholder names] } with at least one name, got "SDK".',
        'Invalid value for option "placeholders.@acme/y.text" in prompts.config.json: expected "sdk", or { text: [placeholder names] } with at least one name, got an array.',
      ].join('\n'),
    );
  });

  it('loads a .ts config that imports another .ts file and defineConfig from "promptlock"', async () => {
    const root = project({
      'config/shared.ts': `export const workspace: string = 'acme';\nexport const list = (ws: string): string[] => [\`@\${ws}/*\`];\n`,
      'prompts.config.ts': [
        `import { defineConfig } from 'promptlock';`,
        `import type { UserConfig } from 'promptlock';`,
        `import { workspace, list } from './config/shared';`,
        `const extra: Partial<UserConfig> = { concurrency: 4 };`,
        `export default defineConfig({ prompts: list(workspace), snapshots: 'out/snaps', ...extra });`,
      ].join('\n'),
      'sub/dir/.keep': '',
    });
    // Searched from a subfolder: paths still resolve against the config file's folder.
    const config = await loadConfig({ cwd: path.join(root, 'sub/dir'), env: {} });
    expect(config.configPath).toBe(path.join(root, 'prompts.config.ts'));
    expect(config.rootDir).toBe(root);
    expect(config.prompts).toEqual(['@acme/*']);
    expect(config.concurrency).toBe(4);
    expect(config.snapshotsDir).toBe(path.join(root, 'out/snaps'));
  });

  const formats: [string, Record<string, string>, string][] = [
    ['.mts', { 'prompts.config.mts': `export default { workspace: 'mts' };` }, 'prompts.config.mts'],
    [
      '.js (ESM)',
      { 'prompts.config.js': `import { defineConfig } from 'promptlock';\nexport default defineConfig({ workspace: 'js' });` },
      'prompts.config.js',
    ],
    ['.mjs', { 'prompts.config.mjs': `export default { workspace: 'mjs' };` }, 'prompts.config.mjs'],
    ['.json', { 'prompts.config.json': `{ "workspace": "json" }` }, 'prompts.config.json'],
    ['package.json key', { 'package.json': `{ "name": "x", "promptlock": { "workspace": "pkg" } }` }, 'package.json'],
    ['a function export', { 'prompts.config.ts': `export default async () => ({ workspace: 'fn' });` }, 'prompts.config.ts'],
  ];
  it.each(formats)('loads %s', async (_name, files, file) => {
    const root = project(files);
    const config = await loadConfig({ cwd: root, env: {} });
    expect(config.configPath).toBe(path.join(root, file));
    expect(config.workspace).toMatch(/^(mts|js|mjs|json|pkg|fn)$/);
  });

  it('loads an explicit configPath relative to cwd, resolving paths against its folder', async () => {
    const root = project({ 'conf/custom.json': `{ "lockfile": "locks/p.lock.json", "output": "gen/p.ts" }` });
    const config = await loadConfig({ cwd: root, configPath: 'conf/custom.json', env: {} });
    expect(config.rootDir).toBe(path.join(root, 'conf'));
    expect(config.lockfilePath).toBe(path.join(root, 'conf/locks/p.lock.json'));
    expect(config.outputPath).toBe(path.join(root, 'conf/gen/p.ts'));
  });

  it('reloads a .ts config and what it imports after they change (watch mode)', async () => {
    const root = project({
      'ws.ts': `export const ws = 'first';`,
      'prompts.config.ts': `import { ws } from './ws';\nexport default { workspace: ws };`,
    });
    expect((await loadConfig({ cwd: root, env: {} })).workspace).toBe('first');
    writeFileSync(path.join(root, 'ws.ts'), `export const ws = 'second';`);
    expect((await loadConfig({ cwd: root, env: {} })).workspace).toBe('second');
  });

  it('takes the key and base URL from the environment', async () => {
    const root = project({ 'prompts.config.json': `{ "baseUrl": "https://example.com/" }` });
    const env = { PROMPTLOCK_API_KEY: ' key-one ', BAYT_API_KEY: 'key-two' };
    expect(await loadConfig({ cwd: root, env })).toMatchObject({ apiKey: 'key-one', baseUrl: 'https://example.com' });
    expect(await loadConfig({ cwd: root, env: { BAYT_API_KEY: 'key-two', PROMPTLOCK_BASE_URL: 'http://127.0.0.1:4010' } })).toMatchObject({
      apiKey: 'key-two',
      baseUrl: 'http://127.0.0.1:4010',
    });
  });
});

/** [name, files, message (exact) or pattern]. Every message names the option and what is allowed. */
const failures: [string, Record<string, string>, string | RegExp][] = [
  [
    'concurrency out of range',
    { 'prompts.config.ts': 'export default { concurrency: 0 };' },
    'Invalid value for option "concurrency" in prompts.config.ts: expected an integer from 1 to 256, got 0.',
  ],
  [
    'concurrency not an integer',
    { 'prompts.config.ts': 'export default { concurrency: 2.5 };' },
    'Invalid value for option "concurrency" in prompts.config.ts: expected an integer from 1 to 256, got 2.5.',
  ],
  [
    'unknown option with a suggestion',
    { 'prompts.config.ts': `export default { snapshot: 'x' };` },
    'Unknown option "snapshot" in prompts.config.ts (did you mean "snapshots"?).',
  ],
  ['unknown option without one', { 'prompts.config.json': `{ "colour": "red" }` }, 'Unknown option "colour" in prompts.config.json.'],
  [
    'a bad prompts entry',
    { 'prompts.config.ts': `export default { prompts: ['@acme/a', '@acme/b:v2', '@Acme/x'] };` },
    'Invalid value for option "prompts[2]" in prompts.config.ts: "@Acme/x" is not a package name or workspace glob (expected @workspace/package[:vN|latest|draft] or @workspace/*).',
  ],
  [
    'a bad selector',
    { 'prompts.config.json': `{ "prompts": ["@acme/*:v1.2"] }` },
    'Invalid value for option "prompts[0]" in prompts.config.json: "@acme/*:v1.2" is not a package name or workspace glob (expected @workspace/package[:vN|latest|draft] or @workspace/*).',
  ],
  [
    'prompts not an array',
    { 'prompts.config.json': `{ "prompts": "@acme/*" }` },
    'Invalid value for option "prompts" in prompts.config.json: expected an array of package names or workspace globs (@workspace/package[:vN|latest|draft] or @workspace/*), got "@acme/*".',
  ],
  [
    'one package with two selectors',
    { 'prompts.config.json': `{ "prompts": ["@acme/x:v1", "@acme/y", "@acme/x:draft"] }` },
    'Invalid value for option "prompts[2]" in prompts.config.json: "@acme/x:draft" asks for @acme/x again, already requested as "@acme/x:v1" in prompts[0] (keep one entry per package, with one selector).',
  ],
  [
    'plain http to a remote host',
    { 'prompts.config.json': `{ "baseUrl": "http://api.example.com" }` },
    'Invalid value for option "baseUrl" in prompts.config.json: expected an https:// URL (http:// only for loopback hosts: 127.0.0.0/8, ::1, localhost), got "http://api.example.com" (plain http:// would send the API key unencrypted to api.example.com).',
  ],
  [
    'not a URL',
    { 'prompts.config.json': `{ "baseUrl": "api.example.com" }` },
    /option "baseUrl" .*got "api\.example\.com" \(not a URL\)\.$/,
  ],
  [
    'wrong type',
    { 'prompts.config.json': `{ "contextFiles": "yes" }` },
    'Invalid value for option "contextFiles" in prompts.config.json: expected true or false, got "yes".',
  ],
  [
    'bad workspace',
    { 'package.json': `{ "promptlock": { "workspace": "Acme Corp" } }` },
    'Invalid value for option "workspace" in package.json ("promptlock" key): expected a workspace slug (lower-case letters, digits and hyphens), got "Acme Corp".',
  ],
  [
    'several problems at once',
    { 'prompts.config.json': `{ "concurrency": 0, "timeout": -1 }` },
    /"concurrency".*got 0\.\n.*"timeout".*got -1\./,
  ],
  ['not an object', { 'prompts.config.json': `[1, 2]` }, 'prompts.config.json must export a config object, got an array.'],
  [
    'a config that throws',
    { 'prompts.config.ts': `throw new Error('boom');\nexport default {};` },
    /^Could not load config file .*prompts\.config\.ts:1:1: boom\n> 1 \| throw new Error\('boom'\);\n {4}\| \^\n {2}2 \| export default \{\};$/,
  ],
  [
    'a config importing a missing file',
    { 'prompts.config.ts': `import x from './nope';\nexport default x;` },
    /^Could not load config file .*prompts\.config\.ts:1:1: .*nope/,
  ],
];

describe('loadConfig: errors', () => {
  it.each(failures)('%s', async (_name, files, expected) => {
    const root = project(files);
    const error = await loadConfig({ cwd: root, env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    if (typeof expected === 'string') expect((error as Error).message).toBe(expected);
    else expect((error as Error).message).toMatch(expected);
  });

  it.each([
    ['the apiKey option', `export default { apiKey: '${KEY}' };`, 'apiKey'],
    ['a key-looking value in another option', `export default { baseUrl: '${KEY}' };`, 'baseUrl'],
    ['a key inside prompts', `export default { prompts: ['@a/b', '${KEY}'] };`, 'prompts[1]'],
  ])('refuses %s, naming PROMPTLOCK_API_KEY and masking the key', async (_name, text, option) => {
    const root = project({ 'prompts.config.ts': text });
    const error = (await loadConfig({ cwd: root, env: {} }).catch((e: unknown) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      `prompts.config.ts contains an API key (option "${option}": sk_live…U1v2). Keys are read only from the environment: ` +
        'remove it and set PROMPTLOCK_API_KEY (or BAYT_API_KEY) instead.',
    );
    expect(JSON.stringify({ m: error.message, h: error.hint, s: error.stack })).not.toContain(KEY);
  });

  it('refuses a PROMPTLOCK_BASE_URL with plain http to a remote host', async () => {
    const root = project({ 'prompts.config.json': '{}' });
    await expect(loadConfig({ cwd: root, env: { PROMPTLOCK_BASE_URL: 'http://10.0.0.5:8080' } })).rejects.toThrow(
      /^Invalid value for PROMPTLOCK_BASE_URL in the environment: .*plain http:\/\/ would send the API key unencrypted to 10\.0\.0\.5/,
    );
  });

  it('reports a missing explicit config file', async () => {
    const root = project({});
    await expect(loadConfig({ cwd: root, configPath: 'nope.config.ts', env: {} })).rejects.toThrow(
      `Config file not found: ${path.join(root, 'nope.config.ts')}.`,
    );
  });

  it.each(['http://127.0.0.1:4010', 'http://127.8.9.1', 'http://localhost:3000', 'http://[::1]:4010', 'https://api.example.com/base'])(
    'accepts %s as baseUrl',
    async (url) => {
      const root = project({ 'prompts.config.json': JSON.stringify({ baseUrl: url }) });
      expect((await loadConfig({ cwd: root, env: {} })).baseUrl).toBe(url);
    },
  );
});
