/**
 * Export names the module cannot carry (src/prompt-grammar.ts, exportNameProblem): `then` (a module
 * exporting it is a thenable, so `await import()` calls it and rejects or never settles), names
 * with `$` (the runtime helper's) and the globals the runtime calls. A prompt named `then` gets
 * `thenPrompt`; a lockfile recording any of them fails `check` and `generate`, naming the name.
 * Built CLI against `promptlock serve`, real files.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { runCliInProcess as runBuiltCli, type ServeProcess, startServe } from '../helpers/cli.js';
import { makeProject, removeDir } from '../helpers/project.js';

const dirs: string[] = [];
let serve: ServeProcess;
let project: string;
let lockfile: string;
const MODULE = 'src/generated/prompts.mjs';
const cli = (args: string[]) => runBuiltCli(args, { cwd: project, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY } });

beforeAll(async () => {
  const served = await mkdtemp(path.join(tmpdir(), 'promptlock-reserved-served-'));
  dirs.push(served);
  for (const pkg of ['then', 'welcome']) {
    await mkdir(path.join(served, 'acme', pkg), { recursive: true });
    await writeFile(path.join(served, 'acme', pkg, 'v1.md'), `Hello {{user}} from ${pkg}.`);
  }
  serve = await startServe(['--dir', served], served);
  project = await makeProject({ baseUrl: serve.url, prompts: ['@acme/then', '@acme/welcome'], output: MODULE });
  dirs.push(project);
  expect((await cli(['sync'])).code).toBe(0);
  lockfile = await readFile(path.join(project, 'prompts.lock.json'), 'utf8');
});
afterAll(async () => {
  await serve?.stop();
  for (const dir of dirs) await removeDir(dir);
});

it('a prompt named then is exported as thenPrompt, and the module imports with await', async () => {
  expect(JSON.parse(lockfile).prompts['@acme/then'].exportName).toBe('thenPrompt');
  const url = `${pathToFileURL(path.join(project, MODULE)).href}?t=${Date.now()}`;
  const mod = (await Promise.race([
    import(url),
    new Promise((_, reject) => setTimeout(() => reject(new Error('never settled')), 5_000)),
  ])) as Record<string, unknown>;
  expect(mod.then).toBeUndefined();
  expect((mod.thenPrompt as (v: object) => { content: string })({ user: 'Ada' }).content).toBe('Hello Ada from then.');
});

it.each([
  ['then', /thenable/],
  ['$readVariables', /\$ is kept for the runtime/],
  ['Object', /global the runtime of the module uses/],
  ['JSON', /global the runtime of the module uses/],
  ['String', /global the runtime of the module uses/],
  ['TypeError', /global the runtime of the module uses/],
])('a lockfile recording the export name %s fails check and generate, saying why', async (name, why) => {
  const lockPath = path.join(project, 'prompts.lock.json');
  await writeFile(lockPath, lockfile.replace('"exportName": "welcome"', `"exportName": ${JSON.stringify(name)}`));
  try {
    for (const command of ['check', 'generate']) {
      const run = await cli([command]);
      expect(run.code, `${command}: ${run.stdout}${run.stderr}`).toBe(1);
      expect(run.stdout + run.stderr).toContain('"prompts.@acme/welcome.exportName"');
      expect(run.stdout + run.stderr).toMatch(why);
    }
  } finally {
    await writeFile(lockPath, lockfile);
  }
});
