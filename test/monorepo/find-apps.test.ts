/** Finding a workspace's apps: npm/yarn `workspaces`, pnpm-workspace.yaml, patterns, configs. */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { expandPatterns, findWorkspace, readPnpmPackages } from '../../src/workspace/find-apps.js';
import { removeDir } from '../helpers/project.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

/** A folder tree from `{ 'apps/a/package.json': '…' }`. */
async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'promptlock-find-apps-'));
  dirs.push(root);
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  return root;
}

const CONFIG = '{ "prompts": ["@acme/*"] }\n';

describe('readPnpmPackages', () => {
  it('reads a block list with quotes, comments and other keys around it', () => {
    const yaml = [
      '# the workspace',
      'catalog:',
      '  react: ^19',
      'packages:',
      "  - 'apps/*'   # the apps",
      '  - "packages/**"',
      '',
      '  - libs/core',
      "  - '!**/test/**'",
      'onlyBuiltDependencies:',
      '  - esbuild',
    ].join('\n');
    expect(readPnpmPackages(yaml)).toEqual(['apps/*', 'packages/**', 'libs/core', '!**/test/**']);
  });

  it('reads a flow list, CRLF line ends, and no packages key at all', () => {
    expect(readPnpmPackages('packages: [\'apps/*\', "libs/*"]\r\n')).toEqual(['apps/*', 'libs/*']);
    expect(readPnpmPackages('catalog:\n  a: 1\n')).toEqual([]);
  });

  it('refuses what it cannot read, naming the file and line', () => {
    expect(() => readPnpmPackages('packages:\n  apps/*\n', '/repo/pnpm-workspace.yaml')).toThrow(
      'Cannot read the "packages" list of /repo/pnpm-workspace.yaml, line 2: expected "- pattern", got "apps/*".',
    );
    expect(() => readPnpmPackages('packages: apps/*\n')).toThrow(ConfigError);
    expect(() => readPnpmPackages('packages: [apps/*,\n  libs/*]\n')).toThrow('a flow list must end on its line');
  });
});

describe('expandPatterns', () => {
  it('matches * in a segment, ** at any depth, and ! exclusions; skips node_modules and hidden folders', async () => {
    const root = await tree({
      'apps/web/package.json': '{}',
      'apps/admin/package.json': '{}',
      'apps/web-legacy/package.json': '{}',
      'packages/ui/package.json': '{}',
      'packages/tools/cli/package.json': '{}',
      'packages/node_modules/x/package.json': '{}',
      'packages/.cache/y/package.json': '{}',
    });
    const rel = async (patterns: string[]) =>
      (await expandPatterns(root, patterns)).map((d) => path.relative(root, d).split(path.sep).join('/'));
    expect(await rel(['apps/*'])).toEqual(['apps/admin', 'apps/web', 'apps/web-legacy']);
    expect(await rel(['apps/web*', '!apps/*-legacy'])).toEqual(['apps/web']);
    expect(await rel(['packages/**'])).toEqual(['packages', 'packages/tools', 'packages/tools/cli', 'packages/ui']);
    expect(await rel(['./packages/ui', 'missing/*'])).toEqual(['packages/ui']);
  });
});

describe('findWorkspace', () => {
  it('npm workspaces: apps with a config of their own, named by package.json, found from inside an app', async () => {
    const root = await tree({
      'package.json': JSON.stringify({ name: 'mono', workspaces: ['apps/*', 'libs/*'] }),
      'apps/web/package.json': JSON.stringify({ name: '@mono/web' }),
      'apps/web/prompts.config.json': CONFIG,
      'apps/api/package.json': JSON.stringify({ name: '@mono/api', promptlock: { prompts: ['@acme/x'] } }),
      'apps/docs/package.json': JSON.stringify({ name: '@mono/docs' }),
      'libs/nameless/prompts.config.ts': 'export default {};\n',
    });
    const found = await findWorkspace(path.join(root, 'apps', 'web'));
    expect(found.root).toBe(root);
    expect(found.source).toBe('package.json');
    expect(found.apps.map((a) => [a.name, a.relativeDir, path.relative(root, a.configPath).split(path.sep).join('/')])).toEqual([
      ['@mono/api', 'apps/api', 'apps/api/package.json'],
      ['@mono/web', 'apps/web', 'apps/web/prompts.config.json'],
      ['libs/nameless', 'libs/nameless', 'libs/nameless/prompts.config.ts'],
    ]);
  });

  it('yarn workspaces { packages: [] }, with the root an app too', async () => {
    const root = await tree({
      'package.json': JSON.stringify({ name: 'mono', workspaces: { packages: ['apps/*'], nohoist: [] } }),
      'prompts.config.json': CONFIG,
      'apps/a/prompts.config.json': CONFIG,
    });
    expect((await findWorkspace(root)).apps.map((a) => [a.name, a.relativeDir])).toEqual([
      ['mono', '.'],
      ['apps/a', 'apps/a'],
    ]);
  });

  it('pnpm-workspace.yaml wins over package.json in the same folder', async () => {
    const root = await tree({
      'package.json': JSON.stringify({ name: 'mono' }),
      'pnpm-workspace.yaml': "packages:\n  - 'services/**'\n",
      'services/billing/worker/prompts.config.json': CONFIG,
    });
    const found = await findWorkspace(root);
    expect(found.source).toBe('pnpm-workspace.yaml');
    expect(found.apps.map((a) => a.relativeDir)).toEqual(['services/billing/worker']);
  });

  it('no workspace, or one without a configured app: a ConfigError saying what to do', async () => {
    const lone = await tree({ 'package.json': '{}' });
    await expect(findWorkspace(lone)).rejects.toThrow(`--recursive: no workspace found from ${lone}.`);
    const empty = await tree({ 'package.json': JSON.stringify({ workspaces: ['apps/*'] }), 'apps/a/package.json': '{}' });
    await expect(findWorkspace(empty)).rejects.toThrow(
      /no package of the workspace at .* has a promptlock config \(packages from package.json: apps\/\*\)/,
    );
  });
});
