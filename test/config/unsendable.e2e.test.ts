/**
 * Issue 28: a key (or base URL) that cannot be sent in a request is a configuration error at once,
 * exit 2, naming the variable, the file it came from and the position of the bad character, the
 * key masked. Before, undici refused the request, the pool kept the refused connection busy for
 * good and `sync`, `diff` and `check --remote` slept forever. Commands that need no key still run.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runBuiltCli, runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { storeTree } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';
import { wireProxy } from '../helpers/wire-proxy.js';

const { serve, project } = disposables();
const KEY = `sk_live_${'UnsendableKey'.padEnd(38, 'u')}wxyz`;
const HINT = 'Copy the key again from the service\'s dashboard: a key is "sk_live_" or "sk_test_" and letters and digits';

let service: string;
beforeAll(async () => {
  service = (await serve({ dir: await writeServedFolder(undefined, 3, 1), keys: [{ key: KEY }] })).url;
});

/** A project synced with the good key, so `diff` and `check --remote` have a lockfile to work from. */
async function syncedProject(baseUrl: string): Promise<string> {
  const dir = await project({ baseUrl, prompts: ['@bulk/*'] });
  const run = await runCliInProcess(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } });
  expect(run.code, run.stderr).toBe(0);
  return dir;
}

describe('a key that cannot be sent', () => {
  it.each([
    [
      "the README's placeholder pasted as is",
      'PROMPTLOCK_API_KEY',
      'sk_live_…',
      'environment',
      '…***',
      'character 9 of 9 is U+2026 (an ellipsis "…")',
    ],
    [
      'a zero-width space after a pasted key',
      'PROMPTLOCK_API_KEY',
      `${KEY}\u200b`,
      '.env',
      'sk_live…xyz\u200b',
      'character 51 of 51 is U+200B (a zero-width space)',
    ],
    [
      'a no-break space inside',
      'BAYT_API_KEY',
      `${KEY.slice(0, 20)}\u00a0${KEY.slice(20)}`,
      '.env.local',
      'sk_live…wxyz',
      'character 21 of 51 is U+00A0 (a no-break space)',
    ],
  ])(
    '%s: exit 2 before any request, naming the variable, the file and the character',
    async (_name, variable, key, where, masked, character) => {
      const proxy = await wireProxy(service);
      const dir = await syncedProject(proxy.url);
      const before = await storeTree(dir);
      const requestsBefore = proxy.seen.length;
      const env: Record<string, string> = {};
      if (where === 'environment') env[variable] = key;
      else await writeFile(path.join(dir, where), `${variable}=${key}\n`);
      // Every command that talks to the service, once; sync alone for the other keys.
      const commands = where === 'environment' ? [['sync'], ['diff'], ['check', '--remote']] : [['sync']];
      for (const args of commands) {
        const run = await runCliInProcess(args, { cwd: dir, env, timeoutMs: 20_000 });
        expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
        const source = where === 'environment' ? 'the environment' : where;
        expect(run.stderr).toContain(
          `error: The API key ${masked} from ${variable} in ${source} cannot be sent in a request: ${character}.`,
        );
        expect(run.stderr).toContain(HINT);
        expect(run.stderr).not.toContain(key);
      }
      expect(proxy.seen.length).toBe(requestsBefore);
      expect(await storeTree(dir)).toEqual({ ...before, ...(where === 'environment' ? {} : { [where]: expect.any(String) }) });
      // generate needs no key: it still runs (an app's `prepare` must not fail on a bad secret).
      expect((await runCliInProcess(['generate'], { cwd: dir, env })).code).toBe(0);
    },
  );

  it('through the built CLI: sync, diff and check --remote each end within seconds with exit 2', async () => {
    const dir = await syncedProject(service);
    for (const args of [['sync'], ['diff'], ['check', '--remote']]) {
      const started = performance.now();
      const run = await runBuiltCli(args, { cwd: dir, env: { PROMPTLOCK_API_KEY: 'sk_live_…' }, timeoutMs: 20_000 });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('cannot be sent in a request: character 9 of 9 is U+2026');
      // A hang bound, not a speed goal: before, the process was still asleep after 10 minutes.
      expect(performance.now() - started).toBeLessThan(10_000);
    }
  });
});

describe('a base URL that cannot be sent as typed', () => {
  it('in the config file: exit 2, the option, the file and the character named', async () => {
    const proxy = await wireProxy(service);
    const dir = await project({ baseUrl: `${proxy.url}\u200b`, prompts: ['@bulk/*'] });
    const run = await runCliInProcess(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Invalid value for option "baseUrl" in prompts.config.json');
    expect(run.stderr).toContain(`character ${proxy.url.length + 1} of ${proxy.url.length + 1} is U+200B (a zero-width space)`);
    expect(proxy.seen).toEqual([]);
  });

  it('in .env: exit 2, naming the file', async () => {
    const proxy = await wireProxy(service);
    const dir = await project({ prompts: ['@bulk/*'] });
    await writeFile(path.join(dir, '.env'), `PROMPTLOCK_BASE_URL=${proxy.url}/\u2026\n`);
    const run = await runCliInProcess(['sync'], { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Invalid value for PROMPTLOCK_BASE_URL in .env:');
    expect(run.stderr).toContain('is U+2026 (an ellipsis "…")');
    expect(proxy.seen).toEqual([]);
  });
});
