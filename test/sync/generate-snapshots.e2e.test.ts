/**
 * `generate` sees snapshot edits (docs/cli.md): its up-to-date check covers the snapshots,
 * not only the lockfile and the module. A snapshot edited by hand is built as it is, with the
 * warning; a broken one (not JSON, or a field of the wrong type) fails with exit 1 naming its file
 * and leaves the module as it was; restoring it rebuilds the module as it was. `--force` is never
 * needed. Built CLI against `promptlock serve`, real files.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { runBuiltCli, type ServeProcess, startServe } from '../helpers/cli.js';
import { makeProject, removeDir } from '../helpers/project.js';

const dirs: string[] = [];
let serve: ServeProcess;
let project: string;
let original: { module: string; snapshot: string };

const MODULE = 'src/generated/prompts.ts';
const SNAPSHOT = 'prompts/acme/welcome.json';
const generate = () => runBuiltCli(['generate'], { cwd: project });
const said = async () => {
  const run = await generate();
  return run.stdout + run.stderr;
};
const read = (file: string) => readFile(path.join(project, file), 'utf8');
const write = (file: string, text: string) => writeFile(path.join(project, file), text);

beforeAll(async () => {
  const served = await mkdtemp(path.join(tmpdir(), 'promptlock-generate-snapshots-served-'));
  dirs.push(served);
  for (const pkg of ['welcome', 'other']) {
    await mkdir(path.join(served, 'acme', pkg), { recursive: true });
    await writeFile(path.join(served, 'acme', pkg, 'v1.md'), `Hello {{user}} from ${pkg}.`);
  }
  serve = await startServe(['--dir', served], served);
  project = await makeProject({ baseUrl: serve.url, prompts: ['@acme/welcome', '@acme/other'] });
  dirs.push(project);
  expect((await runBuiltCli(['sync'], { cwd: project, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY } })).code).toBe(0);
  original = { module: await read(MODULE), snapshot: await read(SNAPSHOT) };
});
afterAll(async () => {
  await serve?.stop();
  for (const dir of dirs) await removeDir(dir);
});

describe('generate and the snapshots', () => {
  it('is up to date after a sync, twice, without a stamp and with one', async () => {
    await rm(path.join(project, '.promptlock'), { recursive: true, force: true });
    for (let i = 0; i < 2; i++) {
      const run = await generate();
      expect(run.code).toBe(0);
      expect(run.stdout + run.stderr).toContain('is up to date');
    }
    expect(await read(MODULE)).toBe(original.module);
  });

  it('rebuilds from a snapshot edited by hand, with the warning, on every run until it is restored', async () => {
    await write(SNAPSHOT, original.snapshot.replace('Hello ', 'Howdy '));
    for (let i = 0; i < 2; i++) {
      const run = await generate();
      expect(run.code).toBe(0);
      expect(run.stderr).toContain('the snapshot of @acme/welcome does not match the lockfile (edited by hand?)');
      expect(await read(MODULE)).toContain('Howdy ');
    }
    await write(SNAPSHOT, original.snapshot);
    const restored = await generate();
    expect(restored.code).toBe(0);
    expect(restored.stderr).not.toContain('does not match');
    expect(await read(MODULE)).toBe(original.module);
    expect(await said()).toContain('is up to date');
  });

  it.each([
    ['not JSON', (text: string) => text.slice(0, 40), /Snapshot prompts\/acme\/welcome\.json is not valid JSON/],
    ['a field of the wrong type', (text: string) => text.replace('"title": "', '"title": 7, "x": "'), /prompts\/acme\/welcome\.json/],
  ])('fails on a snapshot that is %s, naming the file, and keeps the module', async (_, damage, message) => {
    await write(SNAPSHOT, damage(original.snapshot));
    try {
      const run = await generate();
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(await read(MODULE)).toBe(original.module);
    } finally {
      await write(SNAPSHOT, original.snapshot);
    }
    expect((await generate()).code).toBe(0);
  });

  it('sees an edit made while its stamp is recorded (same size, same second)', async () => {
    expect(await said()).toContain('is up to date');
    // Same length, so only the stamp's times and the content tell it.
    await write(SNAPSHOT, original.snapshot.replace('Hello ', 'Hallo '));
    const run = await generate();
    expect(run.stderr).toContain('@acme/welcome does not match the lockfile');
    expect(await read(MODULE)).toContain('Hallo ');
    await write(SNAPSHOT, original.snapshot);
    expect((await generate()).code).toBe(0);
    expect(await read(MODULE)).toBe(original.module);
  });
});
