/**
 * The package root is the documented programmatic API and nothing else, and each function works
 * end to end against the real local service: sync, generate, check, diff, startServer. The built
 * package's entry points (promptlock, promptlock/vite…, promptlock/schema.json) resolve through
 * its "exports". Run `npx tsup` first.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import * as root from '../../src/index.js';
import { ConfigError, check, diff, generate, LOCAL_TEST_KEY, type SyncEvent, startServer, sync } from '../../src/index.js';
import { disposables } from '../helpers/disposables.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const use = disposables();

describe('the package root', () => {
  it('exports the documented API only: sync, syncWorkspace, generate, check, diff, startServer, defineConfig, the test key and the named errors', () => {
    expect(Object.keys(root).sort()).toEqual(
      [
        'AggregatePromptlockError',
        'ConfigError',
        'LOCAL_TEST_KEY',
        'LockfileError',
        'PromptlockError',
        'ServiceError',
        'TemplateError',
        'check',
        'defineConfig',
        'diff',
        'generate',
        'startServer',
        'sync',
        'syncWorkspace',
      ].sort(),
    );
  });

  it('sync, generate, check and diff run a project from its folder against startServer on port 0', async () => {
    const served = await writeServedFolder(undefined, 3, 1);
    use.defer(() => import('../helpers/project.js').then((m) => m.removeDir(served)));
    const server = await startServer({ dir: served, port: 0 });
    use.defer(() => server.close());
    const dir = await use.project({ baseUrl: server.url, prompts: ['@bulk/*'] });
    const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };

    const events: SyncEvent[] = [];
    const synced = await sync({ cwd: dir, env, onEvent: (event) => events.push(event) });
    expect(synced.added.map((c) => c.name)).toEqual(['@bulk/prompt-0000', '@bulk/prompt-0001', '@bulk/prompt-0002']);
    expect(events.some((e) => e.type === 'phase' && e.phase === 'fetch')).toBe(true);

    expect(await generate({ cwd: dir, env: {} })).toMatchObject({ written: false, count: 3 });
    expect(await generate({ cwd: dir, env: {}, force: true })).toMatchObject({ count: 3, mismatched: [] });
    expect(await check({ cwd: dir, env: {}, typecheck: false })).toEqual({ problems: [], checked: 3, placeholders: [] });

    await writeServedFolder(served, 1, 2); // prompt-0000 gets version v2
    await server.reload();
    const changes = await diff({ cwd: dir, env, names: ['@bulk/prompt-0000:latest'] });
    expect(changes.changes.map((c) => [c.name, c.status, c.from, c.to])).toEqual([['@bulk/prompt-0000', 'changed', 'v1', 'v2']]);
    expect(changes.text).toContain('+Line 0 of prompt-0000, revision 2');
    expect(changes.markdown).toContain('```diff');
    // diff wrote nothing: check still passes against the old lockfile.
    expect((await check({ cwd: dir, env: {}, typecheck: false })).problems).toEqual([]);
  });

  it('fails with the named errors the CLI formats (a bad config is a ConfigError, exit code 2)', async () => {
    const dir = await use.project({ concurrency: 0 });
    const error = await generate({ cwd: dir, env: {} }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    expect((error as Error).message).toContain('Invalid value for option "concurrency" in prompts.config.json');
    const other = await use.project({});
    await writeFile(path.join(other, 'custom.json'), '{ "output": "gen/p.ts" }');
    await expect(generate({ cwd: other, config: 'custom.json', env: {} })).rejects.toThrow(/lockfile/i);
  });
});

describe('the built package (exports map)', () => {
  it('resolves promptlock, promptlock/vite, /webpack, /rollup, /esbuild, /rspack and promptlock/schema.json', async () => {
    const script = [
      "const api = await import('promptlock');",
      "const out = { root: ['sync', 'generate', 'check', 'diff', 'startServer', 'defineConfig'].map((n) => typeof api[n]) };",
      "for (const b of ['vite', 'webpack', 'rollup', 'esbuild', 'rspack']) out[b] = typeof (await import(`promptlock/${b}`)).default;",
      "out.vite_name = (await import('promptlock/vite')).default().name;",
      "out.schema = (await import('promptlock/schema.json', { with: { type: 'json' } })).default.title;",
      'console.log(JSON.stringify(out));',
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual({
      root: ['function', 'function', 'function', 'function', 'function', 'function'],
      vite: 'function',
      webpack: 'function',
      rollup: 'function',
      esbuild: 'function',
      rspack: 'function',
      vite_name: 'promptlock',
      schema: 'promptlock config',
    });
  });
});
