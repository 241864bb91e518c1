/**
 * Finding 4: context ids "." and ".." (or any path) never escape `<pkg>.files/`: the store refuses
 * them before anything is staged. Finding 6: snapshots, lockfile and output outside the project (or
 * the project folder itself) are refused with exit 2, naming the option, before anything is written.
 */
import { access, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockfileError, PromptlockError } from '../../src/errors.js';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { commitChanges } from '../../src/store/journal.js';
import { lockPrompt } from '../../src/sync/fetch-prompt.js';
import { fetchedChanges } from '../../src/sync/store-changes.js';
import type { FetchedPrompt } from '../../src/sync/types.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { storeFilesIn } from '../helpers/journal.js';
import { generatedPrompt } from '../helpers/served-folder.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'promptlock-paths-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const txDirs = async () => (await readdir(path.join(root, '.promptlock')).catch(() => [] as string[])).filter((n) => n.startsWith('tx-'));

describe('context file paths cannot escape <pkg>.files/', () => {
  const withFile = (relative: string): FetchedPrompt => {
    const prompt = { ...generatedPrompt(1, 1, 'acme'), packageName: '@acme/x:v1' };
    return { ...lockPrompt('@acme/x', 'v1', prompt), files: [{ path: relative, content: new Uint8Array([1, 2, 3]) }] };
  };
  it.each(['acme/x.files/..', 'acme/x.files/.', 'acme/x.files/', 'acme/x.files/../../../escape', 'acme/y.files/f.txt', 'acme/x.files/a/b'])(
    'refuses %s while planning, before staging',
    async (relative) => {
      const snapshots = path.join(root, 'prompts');
      await mkdir(path.join(snapshots, 'acme'), { recursive: true });
      const plan = () => fetchedChanges(snapshots, withFile(relative));
      expect(plan).toThrow(LockfileError);
      expect(plan).toThrow(`Refusing the context file path "${relative}" of @acme/x`);
      expect(await txDirs()).toEqual([]);
    },
  );

  it('the store itself refuses any target outside the project (or in .promptlock/) before staging', async () => {
    const elsewhere = await mkdtemp(path.join(tmpdir(), 'promptlock-outside-'));
    try {
      for (const target of [
        path.join(elsewhere, 'x.json'),
        path.join(root, '..', path.basename(elsewhere), 'y'),
        root,
        path.join(root, '.promptlock/run.lock'),
      ]) {
        const commit = commitChanges(storeFilesIn(root), [
          { kind: 'write', path: path.join(root, 'prompts/acme/ok.json'), content: 'ok' },
          { kind: 'write', path: target, content: 'escaped' },
        ]);
        await expect(commit).rejects.toThrow(PromptlockError);
        await expect(commit).rejects.toThrow('outside the project folder');
        await expect(commitChanges(storeFilesIn(root), [{ kind: 'delete', path: target }])).rejects.toThrow('Refusing to remove');
      }
      expect(await readdir(elsewhere)).toEqual([]);
      await expect(access(path.join(root, 'prompts/acme/ok.json'))).rejects.toThrow(); // all or nothing
      expect(await txDirs()).toEqual([]);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});

describe('store folders outside the project are a config error (exit 2)', () => {
  const { project } = disposables();
  const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
  it.each([
    ['snapshots', '/', 'is outside the project folder'],
    ['snapshots', '../elsewhere', 'is outside the project folder'],
    ['snapshots', '.', 'is the project folder'],
    ['snapshots', '.promptlock/snaps', "is inside promptlock's own .promptlock folder"],
    ['lockfile', '../prompts.lock.json', 'is outside the project folder'],
    ['lockfile', '/tmp/promptlock-evil.lock.json', 'is outside the project folder'],
    ['output', '../generated/prompts.ts', 'is outside the project folder'],
    ['output', '/tmp/promptlock-evil/prompts.ts', 'is outside the project folder'],
  ])('%s: %j is refused, naming the option, and nothing is written', async (option, value, why) => {
    // The base URL is never reached: the config fails first.
    const dir = await project({ baseUrl: 'http://127.0.0.1:9', prompts: ['@acme/welcome'], [option]: value });
    const before = await readFile(path.join(dir, 'prompts.config.json'), 'utf8');
    for (const command of [['sync'], ['generate'], ['check', '--no-typecheck']]) {
      const run = await runBuiltCli(command, { cwd: dir, env });
      expect(run.code, `${command.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toContain(`Invalid value for option "${option}" in prompts.config.json: "${value}"`);
      expect(run.stderr).toContain(why);
    }
    expect(await readdir(dir)).toEqual(['prompts.config.json']);
    expect(await readFile(path.join(dir, 'prompts.config.json'), 'utf8')).toBe(before);
    await expect(access(path.join(dir, '..', 'elsewhere'))).rejects.toThrow();
    await expect(access('/acme/welcome.json')).rejects.toThrow();
  });

  it('a nested path inside the project is still accepted', async () => {
    const dir = await project({
      baseUrl: 'http://127.0.0.1:9',
      prompts: ['@acme/welcome'],
      snapshots: 'a/b/../prompts',
      output: './gen/p.ts',
    });
    await writeFile(path.join(dir, 'prompts.lock.json'), '{"lockfileVersion":1,"prompts":{}}\n');
    const run = await runBuiltCli(['generate'], { cwd: dir, env: {} });
    expect(run.code, run.stderr).toBe(0);
  });
});
