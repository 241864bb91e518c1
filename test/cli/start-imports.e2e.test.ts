/**
 * What the built CLI loads before it works (docs/performance.md): `--version` loads no package
 * from node_modules (commander, picocolors and zod are bundled); an up-to-date `generate` loads
 * only the config loaders (cosmiconfig, jiti), never the service client (undici) or the config
 * editor's TypeScript (ts-morph); `sync` adds undici, still without ts-morph. Every module a run
 * loads is recorded: ES modules through a resolve hook, CommonJS ones from the require cache at exit.
 */
import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { disposables } from '../helpers/disposables.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = path.join(ROOT, 'dist/cli.js');
const KEY = `sk_live_${'StartImportsKey'.padEnd(38, 'q')}abcd`;
const { serve, project, defer } = disposables();

/** Runs `promptlock <args>` from dist/ in `cwd`; resolves to its exit code and the packages it loaded (name → files). */
async function loadedBy(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; packages: Map<string, string[]>; stderr: string }> {
  const hook = `let port;
    export function initialize(data) { port = data.port; }
    export async function resolve(specifier, context, next) {
      const result = await next(specifier, context);
      if (result.url.startsWith('file:')) port.postMessage(result.url);
      return result;
    }`;
  const script = `
    import { register, createRequire } from 'node:module';
    const urls = new Set();
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (url) => urls.add(url));
    port1.unref();
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}), { data: { port: port2 }, transferList: [port2] });
    process.on('exit', () => {
      const files = [...urls].map((url) => new URL(url).pathname).concat(Object.keys(createRequire(import.meta.url).cache));
      process.stderr.write('LOADED=' + JSON.stringify(files) + '\\n');
    });
    process.argv = [process.argv[0], 'promptlock', ...${JSON.stringify(args)}];
    const { main } = await import(${JSON.stringify(pathToFileURL(CLI).href)});
    await main();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd,
    env: { ...process.env, CI: 'true', NO_COLOR: '1', PROMPTLOCK_API_KEY: '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const timer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 60_000);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  const line = /LOADED=(.*)/.exec(stderr);
  expect(line, stderr).not.toBeNull();
  const packages = new Map<string, string[]>();
  for (const file of JSON.parse(line![1]!) as string[]) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(file);
    if (match) packages.set(match[1]!, [...(packages.get(match[1]!) ?? []), match[2]!]);
  }
  return { code, packages, stderr };
}

it('--version loads no package; generate only the config loaders; sync adds undici, never ts-morph', async () => {
  const served = await writeServedFolder(undefined, 2, 1);
  defer(() => rm(served, { recursive: true, force: true }));
  const server = await serve({ dir: served, keys: [{ key: KEY }] });
  const dir = await project({});
  // The config `promptlock init` writes: TypeScript file, plain JavaScript apart from its import.
  await writeFile(
    path.join(dir, 'prompts.config.ts'),
    `import { defineConfig } from 'promptlock';\n\nexport default defineConfig({\n  baseUrl: '${server.url}',\n  workspace: 'bulk',\n  prompts: ['@bulk/*'],\n});\n`,
  );
  await rm(path.join(dir, 'prompts.config.json'));

  const version = await loadedBy(['--version'], dir);
  expect(version.code).toBe(0);
  expect([...version.packages.keys()]).toEqual([]);

  const sync = await loadedBy(['sync'], dir, { PROMPTLOCK_API_KEY: KEY });
  expect(sync.code, sync.stderr).toBe(0);
  expect(sync.packages.has('undici')).toBe(true);
  // From its package entry, never its private files.
  expect(sync.packages.get('undici')).toContain('index.js');
  expect(sync.packages.has('ts-morph')).toBe(false);

  const generate = await loadedBy(['generate'], dir);
  expect(generate.code, generate.stderr).toBe(0);
  expect(generate.stderr).toContain('is up to date');
  const loaded = [...generate.packages.keys()];
  expect(
    loaded.filter(
      (name) =>
        ![
          'cosmiconfig',
          'jiti',
          'js-yaml',
          'env-paths',
          'import-fresh',
          'parse-json',
          'resolve-from',
          'parent-module',
          'callsites',
          'argparse',
        ].includes(name),
    ),
  ).toEqual([]);
  expect(loaded).toContain('jiti');
});
