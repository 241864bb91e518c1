/**
 * Item 6: every fix `check` suggests is a command that fixes the problem. A hand-edited or deleted
 * module used to be reported with the hint `promptlock generate`, which answered "up to date". For
 * each kind of damage: check exits 1 naming a command, the command runs, and check exits 0. Built
 * CLI against `promptlock serve`, real files.
 */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { runCliInProcess as runBuiltCli, type ServeProcess, startServe } from '../helpers/cli.js';
import { makeProject, removeDir } from '../helpers/project.js';

const dirs: string[] = [];
let serve: ServeProcess;
let synced: string;

const MODULE = 'src/generated/prompts.ts';
const LOCK = 'prompts.lock.json';
const cli = (project: string, args: string[]) => runBuiltCli(args, { cwd: project, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY } });
const edit = async (file: string, change: (text: string) => string) => writeFile(file, change(await readFile(file, 'utf8')));

beforeAll(async () => {
  const served = await mkdtemp(path.join(tmpdir(), 'promptlock-check-fixes-served-'));
  dirs.push(served);
  for (const pkg of ['welcome', 'pinned', 'extra']) {
    await mkdir(path.join(served, 'acme', pkg), { recursive: true });
    await writeFile(path.join(served, 'acme', pkg, 'v1.md'), `Hello {{user}} from ${pkg}.`);
  }
  serve = await startServe(['--dir', served], served);
  synced = await makeProject({ baseUrl: serve.url, prompts: ['@acme/welcome', '@acme/pinned:v1'] });
  dirs.push(synced);
  expect((await cli(synced, ['sync'])).code).toBe(0);
  expect((await cli(synced, ['check'])).code).toBe(0);
});
afterAll(async () => {
  await serve?.stop();
  for (const dir of dirs) await removeDir(dir);
});

/** Every kind of problem check reports that a command fixes, and how to cause it. */
const DAMAGE: Array<[string, (dir: string) => Promise<void>]> = [
  ['module edited by hand', (dir) => edit(path.join(dir, MODULE), (text) => text.replace('Hello ', 'Hi '))],
  ['module edited, banner kept (same length)', (dir) => edit(path.join(dir, MODULE), (text) => `${text}// x\n`)],
  ['module deleted', (dir) => rm(path.join(dir, MODULE))],
  ['no lockfile', (dir) => rm(path.join(dir, LOCK))],
  [
    'config asks for a prompt the lockfile lacks',
    (dir) =>
      writeFile(
        path.join(dir, 'prompts.config.json'),
        JSON.stringify({ baseUrl: serve.url, prompts: ['@acme/welcome', '@acme/pinned:v1', '@acme/extra'] }),
      ),
  ],
  [
    'lockfile has a prompt the config dropped',
    (dir) => writeFile(path.join(dir, 'prompts.config.json'), JSON.stringify({ baseUrl: serve.url, prompts: ['@acme/welcome'] })),
  ],
  ['snapshot edited by hand', (dir) => edit(path.join(dir, 'prompts/acme/pinned.json'), (text) => text.replace('Hello', 'Howdy'))],
  ['snapshot deleted', (dir) => rm(path.join(dir, 'prompts/acme/welcome.json'))],
  [
    'lockfile id of a pinned prompt edited',
    (dir) => edit(path.join(dir, LOCK), (text) => text.replace(/"id": "([^"]+)"/, '"id": "pmt_edited"')),
  ],
  [
    'lockfile variables of a pinned prompt edited',
    (dir) => edit(path.join(dir, LOCK), (text) => text.replace('"name": "user"', '"name": "someone"')),
  ],
  [
    'orphaned snapshot',
    async (dir) => {
      await cp(path.join(dir, 'prompts/acme/welcome.json'), path.join(dir, 'prompts/acme/gone.json'));
      await edit(path.join(dir, 'prompts/acme/gone.json'), (text) => text.replace(/@acme\/welcome/g, '@acme/gone'));
    },
  ],
];

it.each(DAMAGE)('%s: check names a command, the command fixes it', async (_, damage) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-check-fixes-'));
  dirs.push(dir);
  await cp(synced, dir, { recursive: true });
  await damage(dir);
  const broken = await cli(dir, ['check', '--no-typecheck']);
  expect(broken.code).toBe(1);
  const commands = [...new Set([...broken.stderr.matchAll(/`promptlock ([^`]+)`/g)].map((m) => m[1]!))];
  expect(commands.length, broken.stderr).toBeGreaterThan(0);
  for (const command of commands) {
    const run = await cli(dir, command.split(' '));
    expect(run.code, `promptlock ${command}: ${run.stderr}`).toBe(0);
  }
  const fixed = await cli(dir, ['check']);
  expect(fixed.stderr).toContain('agree');
  expect(fixed.code).toBe(0);
});

it('generate rebuilds a hand-edited module instead of answering "up to date"; --force stays an alias', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-check-fixes-'));
  dirs.push(dir);
  await cp(synced, dir, { recursive: true });
  const good = await readFile(path.join(dir, MODULE), 'utf8');
  expect((await cli(dir, ['generate'])).stderr).toContain('is up to date');
  await writeFile(path.join(dir, MODULE), good.replace('Hello ', 'Hi '));
  const regenerated = await cli(dir, ['generate']);
  expect(regenerated.stderr).toContain('Generated');
  expect(await readFile(path.join(dir, MODULE), 'utf8')).toBe(good);
  expect((await cli(dir, ['generate', '--force'])).code).toBe(0);
  expect(await readFile(path.join(dir, MODULE), 'utf8')).toBe(good);
});
