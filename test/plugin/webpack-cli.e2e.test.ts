/**
 * The built `promptlock/webpack` through the real webpack-cli, as a user runs `npx webpack`: a
 * production build bundles the regenerated module, not the stale one on disk, and a broken store
 * fails it (a non-zero exit) with promptlock's message and hint and no stack frames of promptlock's bundled code.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';
import { exampleTexts, makeApp } from './app.js';
import { JS_MODULE } from './bundler-cases.js';

const use = disposables();
const PLUGIN = pathToFileURL(fileURLToPath(new URL('../../dist/webpack.js', import.meta.url))).href;
const WEBPACK_CLI = fileURLToPath(new URL('../../node_modules/webpack-cli/bin/cli.js', import.meta.url));
const MAIN = `import { acmeWelcome } from './generated/prompts.js';\nconsole.log(acmeWelcome().content);\n`;

async function app(): Promise<string> {
  const dir = await makeApp(MAIN, { output: JS_MODULE, main: 'src/main.js' });
  use.defer(() => removeDir(dir));
  await writeFile(
    path.join(dir, 'webpack.config.mjs'),
    `import promptlock from ${JSON.stringify(PLUGIN)};\nexport default { mode: 'production', entry: './src/main.js', plugins: [promptlock()] };\n`,
  );
  return dir;
}

/** `webpack` in `dir`, killed (by its PID, through execFile's timeout) after 60 s. */
function webpackCli(dir: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [WEBPACK_CLI],
      { cwd: dir, timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
      },
    );
  });
}

describe('npx webpack with promptlock/webpack (built)', () => {
  it('bundles the module regenerated before the compilation, not the stale one on disk', async () => {
    const dir = await app();
    await mkdir(path.join(dir, 'src/generated'));
    await writeFile(path.join(dir, JS_MODULE), 'export const acmeWelcome = () => ({ content: "STALE module text" });\n');
    const run = await webpackCli(dir);
    expect(run.code, run.output).toBe(0);
    const bundle = await readFile(path.join(dir, 'dist/main.js'), 'utf8');
    expect(bundle).not.toContain('STALE module text');
    expect(bundle).toContain((await exampleTexts()).get('acme/welcome.json'));
  });

  it("fails on a broken lockfile with promptlock's message and hint, and no stack frames", async () => {
    const dir = await app();
    await writeFile(path.join(dir, 'prompts.lock.json'), '{ "lockfileVersion": 1, "prompts": ');
    const run = await webpackCli(dir);
    expect(run.code, run.output).not.toBe(0);
    expect(run.output).toContain('[promptlock] Lockfile prompts.lock.json is not valid JSON');
    expect(run.output).toContain('Restore it from git');
    expect(run.output).not.toMatch(/\n\s+at /);
    expect(run.output).not.toContain('dist/');
  });
});
