/**
 * `generate` runs in every app's `prepare` script, offline: the built CLI's `generate` loads no
 * HTTP client (undici). Every module the process loads is recorded, ES modules through a resolve
 * hook and CommonJS ones from the require cache at exit: a process is the point here.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { codegenPrompt, tempDir, writeStore } from '../codegen/helpers.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const HOOK = `let port;
  export function initialize(data) { port = data.port; }
  export async function resolve(specifier, context, next) {
    const result = await next(specifier, context);
    if (result.url.startsWith('file:')) port.postMessage(result.url);
    return result;
  }`;

/** Runs `promptlock <args>` from dist/ in `cwd`; resolves to its exit code, stderr and the packages it loaded. */
async function loadedBy(args: string[], cwd: string): Promise<{ code: number | null; stderr: string; packages: string[] }> {
  const script = `
    import { register, createRequire } from 'node:module';
    const urls = new Set();
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (url) => urls.add(url));
    port1.unref();
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}), { data: { port: port2 }, transferList: [port2] });
    process.on('exit', () => {
      const files = [...urls].map((url) => new URL(url).pathname).concat(Object.keys(createRequire(import.meta.url).cache));
      process.stderr.write('LOADED=' + JSON.stringify(files) + '\\n');
    });
    process.argv = [process.argv[0], 'promptlock', ...${JSON.stringify(args)}];
    const { main } = await import(${JSON.stringify(pathToFileURL(CLI).href)});
    await main();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd,
    env: { ...process.env, CI: 'true', NO_COLOR: '1', PROMPTLOCK_API_KEY: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const timer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 60_000);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  const line = /LOADED=(.*)/.exec(stderr);
  expect(line, stderr).not.toBeNull();
  const packages = (JSON.parse(line![1]!) as string[]).flatMap((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1] ?? []);
  return { code, stderr, packages: [...new Set(packages)] };
}

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir('start-imports'));
  await writeStore(dir, [codegenPrompt('@acme/welcome', { content: 'Hello {{name}}' })]);
  // The config `promptlock init` writes: TypeScript, loaded as in an app's `prepare`.
  await writeFile(path.join(dir, 'prompts.config.ts'), `import { defineConfig } from 'promptlock';\n\nexport default defineConfig({});\n`);
});
afterEach(() => remove());

it('generate loads no HTTP client', async () => {
  const run = await loadedBy(['generate'], dir);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toContain('Generated');
  expect(run.packages).toContain('jiti'); // the record is complete: the config loader is in it
  expect(run.packages).not.toContain('undici');
});
