/**
 * Item 5: stable export names. Adding `@globex/welcome` to a project that has `@acme/welcome` used
 * to rename `welcome()` to `acmeWelcome()`, breaking every import. Names are now recorded in the
 * lockfile and kept while the prompt stays in the config; a rename happens only when asked for and
 * is reported. Built CLI against `promptlock serve`, and the real type checker on an app.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { runCliInProcess as runBuiltCli, type ServeProcess, startServe } from '../helpers/cli.js';
import { makeProject, removeDir } from '../helpers/project.js';

const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
const dirs: string[] = [];
let serve: ServeProcess;
let served: string;

beforeAll(async () => {
  served = await mkdtemp(path.join(tmpdir(), 'promptlock-names-served-'));
  dirs.push(served);
  for (const [ws, pkg] of [
    ['acme', 'welcome'],
    ['acme', 'extra'],
    ['globex', 'welcome'],
  ] as const) {
    await mkdir(path.join(served, ws, pkg), { recursive: true });
    await writeFile(path.join(served, ws, pkg, 'v1.md'), `Welcome to ${ws}, {{user}}.`);
  }
  serve = await startServe(['--dir', served], served);
});
afterAll(async () => {
  await serve?.stop();
  for (const dir of dirs) await removeDir(dir);
});

const env = () => ({ PROMPTLOCK_API_KEY: LOCAL_TEST_KEY });
const cli = (project: string, ...args: string[]) => runBuiltCli(args, { cwd: project, env: env() });
const lockedNames = async (project: string) =>
  Object.fromEntries(
    Object.entries(
      JSON.parse(await readFile(path.join(project, 'prompts.lock.json'), 'utf8')).prompts as Record<string, { exportName?: string }>,
    ).map(([name, entry]) => [name, entry.exportName]),
  );
const moduleText = (project: string) => readFile(path.join(project, 'src/generated/prompts.ts'), 'utf8');
const setPrompts = (project: string, prompts: string[]) =>
  writeFile(path.join(project, 'prompts.config.json'), `${JSON.stringify({ baseUrl: serve.url, prompts }, null, 2)}\n`);

/** The app's own TypeScript, type-checked by tsc: it imports `welcome` from the generated module. */
async function appCompiles(project: string): Promise<string> {
  await writeFile(
    path.join(project, 'app.ts'),
    "import { welcome } from './src/generated/prompts';\nexport const text: string = welcome({ user: 'Ada' }).content;\n",
  );
  const tsconfig = {
    compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', skipLibCheck: true },
    files: ['app.ts'],
  };
  await writeFile(path.join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
  const run = spawnSync(process.execPath, [TSC, '-p', project], { encoding: 'utf8', timeout: 60_000 });
  return `${run.status} ${run.stdout}${run.stderr}`.trim();
}

it('adding @globex/welcome keeps welcome(), removal renames nothing, generate gives identical bytes, renames only when asked', async () => {
  const project = await makeProject({ baseUrl: serve.url, prompts: ['@acme/welcome', '@acme/extra'] });
  dirs.push(project);
  expect((await cli(project, 'sync')).code).toBe(0);
  expect(await lockedNames(project)).toEqual({ '@acme/extra': 'extra', '@acme/welcome': 'welcome' });
  expect(await appCompiles(project)).toBe('0');

  // The newcomer collides: it gets the prefix, the existing export keeps its name.
  await setPrompts(project, ['@acme/welcome', '@acme/extra', '@globex/welcome']);
  const added = await cli(project, 'sync');
  expect(added.code).toBe(0);
  expect(added.stderr).not.toMatch(/now exported as/);
  expect(await lockedNames(project)).toEqual({ '@acme/extra': 'extra', '@acme/welcome': 'welcome', '@globex/welcome': 'globexWelcome' });
  expect(await moduleText(project)).toMatch(/^export function welcome\(/m);
  expect(await moduleText(project)).toMatch(/^export function globexWelcome\(/m);
  expect(await appCompiles(project)).toBe('0');

  // Removing other prompts renames nothing.
  await setPrompts(project, ['@acme/welcome', '@globex/welcome']);
  expect((await cli(project, 'sync')).code).toBe(0);
  expect(await lockedNames(project)).toEqual({ '@acme/welcome': 'welcome', '@globex/welcome': 'globexWelcome' });

  // A fresh generate from the committed lockfile and snapshots gives the same bytes.
  const synced = await moduleText(project);
  await rm(path.join(project, 'src/generated/prompts.ts'));
  expect((await cli(project, 'generate')).code).toBe(0);
  expect(await moduleText(project)).toBe(synced);

  // A rename only when asked for, and reported.
  const renamed = await cli(project, 'sync', '--rename-exports');
  expect(renamed.code).toBe(0);
  expect(renamed.stderr).toContain('@acme/welcome is now exported as acmeWelcome (was welcome): update its imports');
  expect(await lockedNames(project)).toEqual({ '@acme/welcome': 'acmeWelcome', '@globex/welcome': 'globexWelcome' });
  expect(await appCompiles(project)).toMatch(/^[12] .*error TS\d+: Module '".\/src\/generated\/prompts"' has no exported member/s);

  // With @globex/welcome gone, a rename asked for gives `welcome` back, reported in --json too.
  await setPrompts(project, ['@acme/welcome']);
  expect((await cli(project, 'sync')).code).toBe(0);
  expect(await lockedNames(project)).toEqual({ '@acme/welcome': 'acmeWelcome' });
  const json = await cli(project, 'sync', '--rename-exports', '--json');
  expect(json.code).toBe(0);
  expect(JSON.parse(json.stdout).renamed).toEqual([{ name: '@acme/welcome', from: 'acmeWelcome', to: 'welcome' }]);
  expect(await appCompiles(project)).toBe('0');
});

it('a lockfile written before names were recorded keeps the names it gave, and records them', async () => {
  const project = await makeProject({ baseUrl: serve.url, prompts: ['@acme/welcome'] });
  dirs.push(project);
  expect((await cli(project, 'sync')).code).toBe(0);
  const lockPath = path.join(project, 'prompts.lock.json');
  // An old lockfile: no exportName, and a module generated from it.
  await writeFile(lockPath, (await readFile(lockPath, 'utf8')).replace(/\n *"exportName": "[^"]*",/g, ''));
  expect((await cli(project, 'generate')).code).toBe(0);
  expect(await moduleText(project)).toMatch(/^export function welcome\(/m);

  await setPrompts(project, ['@acme/welcome', '@globex/welcome']);
  expect((await cli(project, 'sync')).code).toBe(0);
  expect(await lockedNames(project)).toEqual({ '@acme/welcome': 'welcome', '@globex/welcome': 'globexWelcome' });
  expect(await appCompiles(project)).toBe('0');
});

it('recorded names that collide or are not identifiers are a LockfileError naming the entry', async () => {
  const project = await makeProject({ baseUrl: serve.url, prompts: ['@acme/welcome', '@globex/welcome'] });
  dirs.push(project);
  expect((await cli(project, 'sync')).code).toBe(0);
  const lockPath = path.join(project, 'prompts.lock.json');
  const good = await readFile(lockPath, 'utf8');
  const before = await moduleText(project);

  expect(good).toContain('"exportName": "acmeWelcome"');
  await writeFile(lockPath, good.replace('"globexWelcome"', '"acmeWelcome"'));
  const twice = await cli(project, 'generate');
  expect(twice.code).toBe(1);
  expect(twice.stderr).toContain(
    'is invalid at "prompts.@globex/welcome.exportName": "acmeWelcome" is already the export name of @acme/welcome',
  );

  for (const [bad, problem] of [
    ['"class"', 'is a reserved word'],
    ['"welcome-2"', 'must be an identifier'],
    ['"prompts"', 'is a name the module declares itself'],
    ['"PromptProvenance"', 'is a name the module declares itself'],
  ] as const) {
    await writeFile(lockPath, good.replace('"globexWelcome"', bad));
    const run = await cli(project, 'generate');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`is invalid at "prompts.@globex/welcome.exportName": ${problem}`);
    const sync = await cli(project, 'sync');
    expect(sync.code).toBe(1);
    expect(sync.stderr).toContain(problem);
  }
  // Nothing was lost: the module is the one from before.
  expect(await moduleText(project)).toBe(before);
});
