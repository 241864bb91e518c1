import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { ConfigError } from '../../src/errors.js';
import { initProject } from '../../src/init/index.js';
import { PREPARE_SCRIPT } from '../../src/init/package-scripts.js';
import { memoryIO } from '../helpers/memory-io.js';

const TEMPLATE = await readFile(new URL('../../templates/prompts.config.ts', import.meta.url), 'utf8');
const PACKAGE = '{\n    "name": "app",\n    "scripts": {\n        "prepare": "husky",\n        "build": "tsc"\n    }\n}\n';

const folders: string[] = [];
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'promptlock-init-'));
  folders.push(dir);
});
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

const read = (name: string) => readFile(join(dir, name), 'utf8');

describe('initProject', () => {
  it('writes the starter config and adds the scripts, keeping the existing ones and the layout', async () => {
    await writeFile(join(dir, 'package.json'), PACKAGE);
    const result = await initProject({ dir, packageJson: true, force: false });
    expect(await read('prompts.config.ts')).toBe(TEMPLATE);
    expect(await read('package.json')).toBe(
      `{\n    "name": "app",\n    "scripts": {\n        "prepare": ${JSON.stringify(`husky && (${PREPARE_SCRIPT})`)},\n        "build": "tsc",\n        "prompts:sync": "promptlock sync"\n    }\n}\n`,
    );
    expect(result).toEqual({
      configPath: join(dir, 'prompts.config.ts'),
      overwritten: false,
      packageJson: {
        path: join(dir, 'package.json'),
        changed: true,
        scripts: [
          { name: 'prepare', action: 'chained', value: `husky && (${PREPARE_SCRIPT})` },
          { name: 'prompts:sync', action: 'added', value: 'promptlock sync' },
        ],
      },
      scriptsToAdd: undefined,
      gitignore: { path: join(dir, '.gitignore'), action: 'created' },
      commonJs: true,
    });
    expect(await read('.gitignore')).toBe('# Local environment: holds PROMPTLOCK_API_KEY\n.env.local\n');
  });

  it.each([
    ['appends .env.local, keeping CRLF line endings', 'node_modules\r\ndist', 'node_modules\r\ndist\r\n.env.local\r\n', 'added'],
    ['appends after a final newline', 'node_modules/\n', 'node_modules/\n.env.local\n', 'added'],
    ['leaves a file that lists it alone', 'dist\n.env.local\n', 'dist\n.env.local\n', 'present'],
    ['leaves a file whose pattern covers it alone', '/.env*\n', '/.env*\n', 'present'],
    ['counts *.local', '*.local\n', '*.local\n', 'present'],
    ['adds it again after a negation', '.env*\n!.env.local\n', '.env*\n!.env.local\n.env.local\n', 'added'],
    ['ignores a deeper path', 'config/.env.local\n', 'config/.env.local\n.env.local\n', 'added'],
  ])('.gitignore: %s', async (_title, before, after, action) => {
    await writeFile(join(dir, '.gitignore'), before);
    const result = await initProject({ dir, packageJson: false, force: false });
    expect(result.gitignore.action).toBe(action);
    expect(await read('.gitignore')).toBe(after);
    // A second init (forced) never duplicates the line.
    await initProject({ dir, packageJson: false, force: true });
    expect(await read('.gitignore')).toBe(after);
  });

  it.each([
    ['without a package.json', false, true],
    ['with packageJson: false', true, false],
  ])('only reports the scripts %s', async (_title, withPackage, packageJson) => {
    if (withPackage) await writeFile(join(dir, 'package.json'), PACKAGE);
    const result = await initProject({ dir, packageJson, force: false });
    expect(result.scriptsToAdd).toEqual({ prepare: PREPARE_SCRIPT, 'prompts:sync': 'promptlock sync' });
    expect(result.packageJson).toBeUndefined();
    if (withPackage) expect(await read('package.json')).toBe(PACKAGE);
  });

  it.each([
    ['prompts.config.ts', false, 'prompts.config.ts already exists in DIR; promptlock init does not overwrite it.', '--force'],
    ['prompts.config.json', false, 'prompts.config.json already exists in DIR; promptlock init does not overwrite it.', 'remove it first'],
    [
      'prompts.config.mjs',
      true,
      'prompts.config.mjs already exists in DIR; promptlock init does not overwrite it.',
      '--force only replaces prompts.config.ts',
    ],
    [
      'package.json',
      true,
      'package.json ("promptlock" key) already exists in DIR; promptlock init does not overwrite it.',
      'remove it first',
    ],
  ])('refuses when %s exists (force: %s)', async (existing, force, message, hint) => {
    const before = existing === 'package.json' ? '{ "promptlock": { "prompts": ["@acme/*"] } }\n' : 'export default {};\n';
    await writeFile(join(dir, existing), before);
    const error = await initProject({ dir, packageJson: true, force }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(message.replaceAll('DIR', dir));
    expect((error as ConfigError).hint).toContain(hint);
    // Refused means untouched: nothing written, nothing edited.
    expect(await read(existing)).toBe(before);
    if (existing !== 'prompts.config.ts') await expect(read('prompts.config.ts')).rejects.toThrow(/ENOENT/);
  });

  it('replaces prompts.config.ts with force', async () => {
    await writeFile(join(dir, 'prompts.config.ts'), 'export default {};\n');
    const result = await initProject({ dir, packageJson: true, force: true });
    expect(result.overwritten).toBe(true);
    expect(await read('prompts.config.ts')).toBe(TEMPLATE);
  });
});

describe('promptlock init (in process)', () => {
  it('prints what it did and the next steps, then refuses a second run with exit code 2', async () => {
    await writeFile(join(dir, 'package.json'), PACKAGE);
    const first = memoryIO({ cwd: dir });
    expect(await runCli(['init'], first)).toBe(0);
    expect(first.err()).toContain('Wrote prompts.config.ts');
    // The prepare command is said in words: its quoted `node -e` line is unreadable in a sentence.
    expect(first.err()).toContain(
      'Chained promptlock into your "prepare" script in package.json: it runs promptlock generate on every install; skipped by a production install, which has no promptlock',
    );
    expect(first.err()).not.toContain('require.resolve');
    expect(first.err()).toContain('Added script "prompts:sync" to package.json: promptlock sync');
    expect(first.err()).toContain('Wrote .gitignore ignoring .env.local');
    expect(first.err()).toContain('PROMPTLOCK_API_KEY=… in .env.local (git ignores it)');
    expect(first.err()).toContain('run npx promptlock serve --dir <folder of prompts> and put the two lines it prints in .env.local');
    // The package has no "type": "module": the first step says how to compile the ES module.
    expect(first.err()).toContain('1. Make the app an ES module package: npm pkg set type=module.');
    expect(first.err()).toContain('npx promptlock sync');
    expect(first.err()).toContain('prompts.lock.json, the prompts/ folder and the generated module');

    const second = memoryIO({ cwd: dir });
    expect(await runCli(['init'], second)).toBe(2);
    expect(second.err()).toContain(`error: prompts.config.ts already exists in ${dir}; promptlock init does not overwrite it.`);
  });

  it('prints the scripts to add with --no-package-json', async () => {
    await writeFile(join(dir, 'package.json'), PACKAGE);
    const io = memoryIO({ cwd: dir });
    expect(await runCli(['init', '--no-package-json'], io)).toBe(0);
    expect(io.err()).toContain(
      `Add these scripts to your package.json:\n  "scripts": {\n    "prepare": ${JSON.stringify(PREPARE_SCRIPT)},\n    "prompts:sync": "promptlock sync"\n  }\n  ("prepare" runs promptlock generate on every install`,
    );
    expect(await read('package.json')).toBe(PACKAGE);
  });

  it('prints one JSON summary with --json', async () => {
    const io = memoryIO({ cwd: dir });
    expect(await runCli(['init', '--json'], io)).toBe(0);
    expect(io.err()).toBe('');
    expect(JSON.parse(io.out())).toMatchObject({
      config: join(dir, 'prompts.config.ts'),
      overwritten: false,
      packageJson: null,
      gitignore: { path: join(dir, '.gitignore'), action: 'created' },
      commonJs: false,
      scriptsToAdd: { prepare: PREPARE_SCRIPT, 'prompts:sync': 'promptlock sync' },
    });
  });

  it('refuses --config with exit code 2', async () => {
    const io = memoryIO({ cwd: dir });
    expect(await runCli(['init', '--config', 'other.ts'], io)).toBe(2);
    expect(io.err()).toContain('promptlock init does not take --config');
  });
});

describe('promptlock add / remove --no-sync (in process)', () => {
  it('edits the config the loader finds, and reports errors with exit code 2', async () => {
    await writeFile(join(dir, 'package.json'), '{ "name": "app" }\n');
    expect(await runCli(['init', '--quiet'], memoryIO({ cwd: dir }))).toBe(0);

    const add = memoryIO({ cwd: dir });
    expect(await runCli(['add', '@acme/onboarding:v3', '--no-sync'], add)).toBe(0);
    expect(add.err()).toContain('Added "@acme/onboarding:v3" to prompts.config.ts');
    expect(await runCli(['add', '@acme/billing', '--no-sync'], memoryIO({ cwd: dir }))).toBe(0);
    expect(await read('prompts.config.ts')).toContain(
      "    // '@acme/experiment:draft',\n    '@acme/onboarding:v3',\n    '@acme/billing',\n  ],",
    );

    const again = memoryIO({ cwd: dir });
    expect(await runCli(['add', '@acme/billing', '--no-sync', '--json'], again)).toBe(0);
    expect(JSON.parse(again.out())).toEqual({
      changed: false,
      action: 'unchanged',
      entry: '@acme/billing',
      configPath: join(dir, 'prompts.config.ts'),
    });

    const remove = memoryIO({ cwd: dir });
    expect(await runCli(['remove', '@acme/onboarding', '--no-sync'], remove)).toBe(0);
    expect(remove.err()).toContain('Removed "@acme/onboarding:v3" from prompts.config.ts');

    const missing = memoryIO({ cwd: dir });
    expect(await runCli(['remove', '@acme/onboarding', '--no-sync'], missing)).toBe(2);
    expect(missing.err()).toContain('error: "@acme/onboarding" is not in the prompts list of prompts.config.ts.');

    const invalid = memoryIO({ cwd: dir });
    expect(await runCli(['add', 'onboarding', '--no-sync'], invalid)).toBe(2);
    expect(invalid.err()).toContain('error: Invalid prompt name "onboarding"');
  });

  it('says to run init when there is no config', async () => {
    await writeFile(join(dir, 'package.json'), '{ "name": "app" }\n');
    const io = memoryIO({ cwd: dir });
    expect(await runCli(['add', '@acme/billing', '--no-sync'], io)).toBe(2);
    expect(io.err()).toContain(`error: No promptlock config found in ${dir} or above it in this project.`);
    expect(io.err()).toContain('Run promptlock init');
  });
});
