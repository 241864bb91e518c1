/**
 * A config that only imports `defineConfig` from promptlock and is otherwise plain JavaScript (the
 * one `promptlock init` writes) loads without jiti; every other config still goes through jiti and
 * loads the same values, with the same error locations.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { loadPlainConfig } from '../../src/config/read-config-file.js';
import { removeDir } from '../helpers/project.js';

const TEMPLATE = fileURLToPath(new URL('../../templates/prompts.config.ts', import.meta.url));
const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map(removeDir)));

async function projectWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-fast-config-'));
  dirs.push(dir);
  await writeFile(path.join(dir, 'package.json'), '{"type":"module"}\n');
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return dir;
}

/**
 * Loads the project's config the way the built CLI does (`promptlock generate`, in a fresh process)
 * and tells whether that loaded jiti, with the prompts `loadConfig` read.
 */
async function loadsJiti(dir: string): Promise<{ jiti: boolean; prompts: unknown }> {
  const script = `
    import { createRequire } from 'node:module';
    process.on('exit', () => {
      const cache = createRequire(import.meta.url).cache;
      process.stderr.write('JITI=' + Object.keys(cache).some((k) => k.includes('/jiti/')) + '\\n');
    });
    process.argv = [process.argv[0], 'promptlock', 'generate', '--json'];
    const { main } = await import(${JSON.stringify(CLI)});
    await main();`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, CI: 'true' },
  });
  const flag = /JITI=(true|false)/.exec(run.stderr);
  expect(flag, run.stderr).not.toBeNull();
  // Loaded: generate then writes an empty module (no lockfile yet).
  expect(run.status, run.stdout + run.stderr).toBe(0);
  return { jiti: flag![1] === 'true', prompts: (await loadConfig({ cwd: dir, env: {} })).prompts };
}

const plain = `import { defineConfig } from 'promptlock';\n\nconst workspace = process.env.NO_SUCH_VARIABLE ?? 'acme';\nexport default defineConfig({ prompts: [\`@\${workspace}/a\`, '@acme/b:v2'], concurrency: 4 });\n`;

describe('loading a config without jiti', () => {
  it('loads the init template and a plain config directly, with the values jiti gives', async () => {
    expect(await loadPlainConfig(await readFile(TEMPLATE, 'utf8'))).toEqual({ ok: true, value: { prompts: [] } });
    expect(await loadPlainConfig(plain)).toEqual({ ok: true, value: { prompts: ['@acme/a', '@acme/b:v2'], concurrency: 4 } });
    expect(await loadPlainConfig('export default async () => ({ prompts: [await Promise.resolve("@acme/a")] });')).toEqual({
      ok: true,
      value: { prompts: ['@acme/a'] },
    });
    const dir = await projectWith({ 'prompts.config.ts': plain });
    expect(await loadsJiti(dir)).toEqual({ jiti: false, prompts: ['@acme/a', '@acme/b:v2'] });
  });

  it.each([
    [
      'TypeScript syntax',
      `import { defineConfig } from 'promptlock';\nconst prompts: string[] = ['@acme/a'];\nexport default defineConfig({ prompts });\n`,
    ],
    [
      'another import',
      `import { defineConfig } from 'promptlock';\nimport { prompts } from './list.ts';\nexport default defineConfig({ prompts });\n`,
    ],
    [
      'import.meta',
      `import { defineConfig } from 'promptlock';\nexport default defineConfig({ prompts: [import.meta.url ? '@acme/a' : ''] });\n`,
    ],
    ['a named export too', `export const prompts = ['@acme/a'];\nexport default { prompts };\n`],
  ])('leaves a config with %s to jiti, which loads it as before', async (_what, text) => {
    expect(await loadPlainConfig(text)).toEqual({ ok: false });
    const dir = await projectWith({ 'prompts.config.ts': text, 'list.ts': `export const prompts: string[] = ['@acme/a'];\n` });
    expect(await loadsJiti(dir)).toEqual({ jiti: true, prompts: ['@acme/a'] });
  });

  it('reports an error thrown by a plain config at its line, through jiti as before', async () => {
    const text = `import { defineConfig } from 'promptlock';\n\nthrow new Error('no prompts today');\nexport default defineConfig({ prompts: [] });\n`;
    expect(await loadPlainConfig(text)).toEqual({ ok: false });
    const dir = await projectWith({ 'prompts.config.ts': text });
    await expect(loadConfig({ cwd: dir, env: {} })).rejects.toThrow(/prompts\.config\.ts:3:\d+: no prompts today/);
  });
});

describe('the transpiled-config cache', () => {
  const typed = (list: string) =>
    `import { defineConfig } from 'promptlock';\n\nconst prompts: string[] = [${list}];\n\nexport default defineConfig({ prompts });\n`;
  // The user's cache folder, here a temporary one (the CLI processes inherit it).
  let cacheHome: string;
  const previousCacheHome = process.env.XDG_CACHE_HOME;
  beforeAll(async () => {
    cacheHome = await mkdtemp(path.join(tmpdir(), 'promptlock-cache-home-'));
    dirs.push(cacheHome);
    process.env.XDG_CACHE_HOME = cacheHome;
  });
  afterAll(() => {
    if (previousCacheHome === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = previousCacheHome;
  });
  const configPath = async (dir: string) => path.join(await realpath(dir), 'prompts.config.ts');
  const cacheFile = async (dir: string) =>
    path.join(
      cacheHome,
      'promptlock',
      'config',
      `${createHash('sha256')
        .update(await configPath(dir))
        .digest('base64url')}.js`,
    );

  it('transpiles a config that imports only promptlock once; the next run evaluates the cached code without jiti', async () => {
    const dir = await projectWith({ 'prompts.config.ts': typed(`'@acme/a'`) });
    expect(await loadsJiti(dir)).toEqual({ jiti: true, prompts: ['@acme/a'] });
    const cached = await readFile(await cacheFile(dir), 'utf8');
    expect(cached).toMatch(/^\/\/ promptlock config cache \d+ \S+\n/);
    expect(cached).toContain('jitiImport("promptlock")');
    expect(await loadsJiti(dir)).toEqual({ jiti: false, prompts: ['@acme/a'] });
  });

  it('keeps the cache outside the project: a cache file in the project (committed by someone) is never run', async () => {
    const dir = await projectWith({ 'prompts.config.ts': typed(`'@acme/a'`) });
    expect(await loadsJiti(dir)).toEqual({ jiti: true, prompts: ['@acme/a'] });
    const good = await readFile(await cacheFile(dir), 'utf8');
    const key = good.split('\n')[0]!;
    // What the cache held before it moved out of the project, with a valid key but hidden code.
    await mkdir(path.join(dir, '.promptlock'), { recursive: true });
    const hidden = `${key}\nexports.default = { prompts: ['@evil/x'] };`;
    await writeFile(path.join(dir, '.promptlock', 'config-cache.js'), hidden);
    // A fresh machine (an empty cache folder): the file in the project is never read.
    process.env.XDG_CACHE_HOME = await mkdtemp(path.join(tmpdir(), 'promptlock-cache-home-'));
    dirs.push(process.env.XDG_CACHE_HOME);
    try {
      expect(await loadsJiti(dir)).toEqual({ jiti: true, prompts: ['@acme/a'] });
      expect(await loadsJiti(dir)).toEqual({ jiti: false, prompts: ['@acme/a'] });
    } finally {
      process.env.XDG_CACHE_HOME = cacheHome;
    }
  });

  it('a changed config gets fresh values (through jiti once, then cached again)', async () => {
    const dir = await projectWith({ 'prompts.config.ts': typed(`'@acme/a'`) });
    expect(await loadsJiti(dir)).toEqual({ jiti: true, prompts: ['@acme/a'] });
    await writeFile(path.join(dir, 'prompts.config.ts'), typed(`'@acme/b', '@acme/c:v2'`));
    expect(await loadsJiti(dir)).toEqual({ jiti: true, prompts: ['@acme/b', '@acme/c:v2'] });
    expect(await loadsJiti(dir)).toEqual({ jiti: false, prompts: ['@acme/b', '@acme/c:v2'] });
  });

  it.each([
    ['garbage after a valid first line', (text: string) => `${text.split('\n')[0]}\n)(this is not code{`],
    ['code that throws', (text: string) => `${text.split('\n')[0]}\nthrow new Error('damaged');`],
    ['a truncated file', (text: string) => text.slice(0, 30)],
    ['an empty file', () => ''],
  ])('ignores a corrupt cache (%s): the config loads through jiti and the cache is rewritten', async (_what, damage) => {
    const dir = await projectWith({ 'prompts.config.ts': typed(`'@acme/a'`) });
    await loadsJiti(dir);
    const good = await readFile(await cacheFile(dir), 'utf8');
    await writeFile(await cacheFile(dir), damage(good));
    expect(await loadsJiti(dir)).toEqual({ jiti: true, prompts: ['@acme/a'] });
    expect(await readFile(await cacheFile(dir), 'utf8')).toBe(good);
  });

  it('a cached config that throws is reported by jiti at its line, as before', async () => {
    const text = `import { defineConfig } from 'promptlock';\nconst prompts: string[] = ['@acme/a'];\nif (process.env.PROMPTLOCK_TEST_FAIL) throw new Error('no prompts today');\nexport default defineConfig({ prompts });\n`;
    const dir = await projectWith({ 'prompts.config.ts': text });
    await loadsJiti(dir);
    process.env.PROMPTLOCK_TEST_FAIL = '1';
    try {
      await expect(loadConfig({ cwd: dir, env: {} })).rejects.toThrow(/prompts\.config\.ts:3:\d+: no prompts today/);
    } finally {
      delete process.env.PROMPTLOCK_TEST_FAIL;
    }
  });

  it('never caches a config that imports another file, nor one holding a key; the cache holds no value of the environment or .env', async () => {
    const importing = await projectWith({
      'prompts.config.ts': `import { defineConfig } from 'promptlock';\nimport { prompts } from './list.ts';\nexport default defineConfig({ prompts });\n`,
      'list.ts': `export const prompts: string[] = ['@acme/a'];\n`,
    });
    expect(await loadsJiti(importing)).toEqual({ jiti: true, prompts: ['@acme/a'] });
    expect(await loadsJiti(importing)).toEqual({ jiti: true, prompts: ['@acme/a'] });
    await expect(readFile(await cacheFile(importing), 'utf8')).rejects.toThrow(/ENOENT/);

    const key = `sk_live_${'Q7r8S9t0U1v2'.repeat(3)}`;
    const withKey = await projectWith({
      'prompts.config.ts': `import { defineConfig } from 'promptlock';\nconst apiKey: string = '${key}';\nexport default defineConfig({ prompts: ['@acme/a'], apiKey } as never);\n`,
    });
    await expect(loadConfig({ cwd: withKey, env: {} })).rejects.toThrow(/contains an API key/);
    await expect(readFile(await cacheFile(withKey), 'utf8')).rejects.toThrow(/ENOENT/);

    const fromEnv = await projectWith({
      'prompts.config.ts': `import { defineConfig } from 'promptlock';\nconst workspace: string = process.env.PROMPTLOCK_WORKSPACE ?? 'acme';\nexport default defineConfig({ prompts: [\`@\${workspace}/a\`] });\n`,
      '.env': `PROMPTLOCK_API_KEY=${key}\nPROMPTLOCK_WORKSPACE=secret-workspace\n`,
    });
    // The config runs with the real environment; .env values reach only promptlock's own settings.
    process.env.PROMPTLOCK_WORKSPACE = 'from-env';
    try {
      const config = await loadConfig({ cwd: fromEnv, env: {} });
      expect(config.apiKey).toBe(key);
      expect(config.prompts).toEqual(['@from-env/a']);
    } finally {
      delete process.env.PROMPTLOCK_WORKSPACE;
    }
    const cached = await readFile(await cacheFile(fromEnv), 'utf8');
    expect(cached).not.toContain(key);
    expect(cached).not.toContain('secret-workspace');
    expect(cached).not.toContain('from-env');
  });
});
