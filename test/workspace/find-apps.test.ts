/** Finding a workspace's apps: npm/yarn `workspaces`, pnpm-workspace.yaml, patterns, configs. */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
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
  it('reads a block list with quotes, comments and other keys around it', async () => {
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
    expect(await readPnpmPackages(yaml)).toEqual(['apps/*', 'packages/**', 'libs/core', '!**/test/**']);
  });

  it('reads a flow list (on one line or several), CRLF line ends, and no packages key at all', async () => {
    expect(await readPnpmPackages('packages: [\'apps/*\', "libs/*"]\r\n')).toEqual(['apps/*', 'libs/*']);
    expect(await readPnpmPackages('packages: [apps/*,\n  libs/*]\n')).toEqual(['apps/*', 'libs/*']);
    expect(await readPnpmPackages('catalog:\n  a: 1\n')).toEqual([]);
  });

  it('refuses what it cannot read, naming the file (and the line of a YAML error)', async () => {
    await expect(readPnpmPackages('packages:\n  apps/*\n', '/repo/pnpm-workspace.yaml')).rejects.toThrow(
      'Cannot read the "packages" list of /repo/pnpm-workspace.yaml: expected a list of patterns, got "apps/*".',
    );
    await expect(readPnpmPackages('packages: apps/*\n')).rejects.toThrow(ConfigError);
    await expect(readPnpmPackages('packages:\n  - [apps\n', '/repo/pnpm-workspace.yaml')).rejects.toThrow(
      /^Cannot read \/repo\/pnpm-workspace\.yaml, line 3: /,
    );
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

  it('refuses a pattern that leaves the root, and a package linked from outside it (issue 19, item 10)', async () => {
    const outside = await tree({ 'evil/prompts.config.mjs': 'export default {};\n' });
    const root = await tree({ 'apps/web/package.json': '{}', 'apps/inner/package.json': '{}' });
    await symlink(path.join(outside, 'evil'), path.join(root, 'apps', 'linked'));
    await symlink(path.join(root, 'apps', 'inner'), path.join(root, 'apps', 'alias'));
    await expect(expandPatterns(root, ['apps/*', `../${path.basename(outside)}/*`], 'package.json')).rejects.toThrow(
      `Package pattern "../${path.basename(outside)}/*" of package.json leaves the workspace root ${root}`,
    );
    await expect(expandPatterns(root, ['apps/*', 'apps/linked'], 'package.json')).rejects.toThrow(
      `Package apps/linked of package.json is a link to ${await realpath(path.join(outside, 'evil'))}, outside the workspace root ${root}`,
    );
    const rel = async (patterns: string[]) =>
      (await expandPatterns(root, patterns)).map((d) => path.relative(root, d).split(path.sep).join('/'));
    // A glob never follows a link; a link named outright that stays inside is kept.
    expect(await rel(['apps/*'])).toEqual(['apps/inner', 'apps/web']);
    expect(await rel(['apps/alias'])).toEqual(['apps/alias']);
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

  it('stops at the repository boundary: a pnpm-workspace.yaml above the repository is not its root', async () => {
    const outer = await tree({
      'pnpm-workspace.yaml': "packages:\n  - 'project'\n",
      'project/package.json': JSON.stringify({ name: 'project' }),
      'project/prompts.config.json': CONFIG,
      'project/.git/HEAD': 'ref: refs/heads/main\n',
    });
    const project = path.join(outer, 'project');
    await expect(findWorkspace(project)).rejects.toThrow(`--recursive: no workspace found from ${project} up to its repository's folder.`);
    // Without the repository, the folder above is the workspace (as pnpm sees it).
    await rm(path.join(project, '.git'), { recursive: true });
    expect((await findWorkspace(project)).root).toBe(outer);
  });

  it('no workspace, or one without a configured app: a ConfigError saying what to do', async () => {
    const lone = await tree({ 'package.json': '{}' });
    await expect(findWorkspace(lone)).rejects.toThrow(`--recursive: no workspace found from ${lone}`);
    const empty = await tree({ 'package.json': JSON.stringify({ workspaces: ['apps/*'] }), 'apps/a/package.json': '{}' });
    await expect(findWorkspace(empty)).rejects.toThrow(
      /no package of the workspace at .* has a promptlock config \(packages from package.json: apps\/\*\)/,
    );
  });
});
