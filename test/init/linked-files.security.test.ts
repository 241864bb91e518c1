/**
 * Security regression (issue 30, item 2): `init` runs in a checkout, where any file may be a
 * committed symbolic link. It wrote through them: a linked package.json (the scripts went into
 * the file it points at), a linked workflow file with `--force` (its target overwritten), a linked
 * `.gitlab/` folder (the CI file written into the folder it points at). Every file promptlock
 * writes goes through one writer that never follows a link: refused, naming the link, and the
 * file it points at keeps its bytes. In process, real files and links.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';

const folders: string[] = [];
let dir: string;
let away: string;
const VICTIM = '{ "name": "someone-else", "scripts": {} }\n';

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'promptlock-init-links-'));
  away = await mkdtemp(path.join(tmpdir(), 'promptlock-outside-'));
  folders.push(dir, away);
  await writeFile(path.join(away, 'victim.json'), VICTIM);
});
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

const init = (...args: string[]) => runCliInProcess(['init', ...args], { cwd: dir });

it('a package.json linked out of the project: refused, naming it; the file it points at keeps its bytes', async () => {
  await symlink(path.join(away, 'victim.json'), path.join(dir, 'package.json'));
  const run = await init();
  expect(await readFile(path.join(away, 'victim.json'), 'utf8')).toBe(VICTIM);
  expect(run.code).not.toBe(0);
  expect(run.stderr).toContain(`package.json: it is a symbolic link`);
});

it('init --ci github --force over a linked workflow file: refused, naming it; its target keeps its bytes', async () => {
  await mkdir(path.join(dir, '.github/workflows'), { recursive: true });
  await symlink(path.join(away, 'victim.json'), path.join(dir, '.github/workflows/prompts.yml'));
  const run = await init('--ci', 'github', '--force');
  expect(await readFile(path.join(away, 'victim.json'), 'utf8')).toBe(VICTIM);
  expect(run.code).not.toBe(0);
  expect(run.stderr).toContain('.github/workflows/prompts.yml: it is a symbolic link');
});

it('init --ci gitlab with .gitlab/ linked to a folder outside: refused, naming the link; nothing is written there', async () => {
  await symlink(away, path.join(dir, '.gitlab'));
  const run = await init('--ci', 'gitlab');
  expect(await readdir(away)).toEqual(['victim.json']);
  expect(run.code).not.toBe(0);
  expect(run.stderr).toContain(`.gitlab is a symbolic link`);
});

it('a .gitignore linked out of the project: refused; the file it points at keeps its bytes', async () => {
  await writeFile(path.join(dir, 'package.json'), '{ "name": "app" }\n');
  await symlink(path.join(away, 'victim.json'), path.join(dir, '.gitignore'));
  const run = await init();
  expect(await readFile(path.join(away, 'victim.json'), 'utf8')).toBe(VICTIM);
  expect(run.code).not.toBe(0);
  expect(run.stderr).toContain(`.gitignore: it is a symbolic link`);
});
