/**
 * The built CLI (run `npx tsup` first) in a fresh project against the real local service on
 * loopback: init, init again (refused), add → sync of that prompt, remove → sync that drops it.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREPARE_SCRIPT } from '../../src/init/package-scripts.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { type CliRun, runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { allText, removeDir } from '../helpers/project.js';

// A live-looking key, built at run time: it must never appear in any output or file.
const KEY = `sk_live_${'InitE2eKey'.padEnd(38, 'q')}wxyz`;

let server: RunningServer;
let dir: string;
const outputs: string[] = [];

async function cli(args: string[]): Promise<CliRun> {
  const run = await runBuiltCli(args, { cwd: dir, env: { PROMPTLOCK_API_KEY: KEY, PROMPTLOCK_BASE_URL: server.url } });
  outputs.push(run.stdout, run.stderr);
  return run;
}

const lockedNames = async () => Object.keys(JSON.parse(await readFile(join(dir, 'prompts.lock.json'), 'utf8')).prompts);

beforeAll(async () => {
  server = await startServer({ dir: resolve('examples/workspace'), port: 0, keys: [{ key: KEY }] });
  dir = await mkdtemp(join(tmpdir(), 'promptlock-init-e2e-'));
  await writeFile(join(dir, 'package.json'), '{\n  "name": "app",\n  "type": "module"\n}\n');
});

afterAll(async () => {
  for (const output of outputs) expect(output).not.toContain(KEY);
  expect(await allText(dir)).not.toContain(KEY);
  await server.close();
  await removeDir(dir);
});

describe('promptlock init, add and remove (built CLI)', () => {
  it('init writes the config and scripts (exit 0), then refuses to overwrite (exit 2)', async () => {
    const first = await cli(['init']);
    expect(first.stderr).toContain('Wrote prompts.config.ts');
    expect(first.code).toBe(0);
    expect(await readFile(join(dir, 'prompts.config.ts'), 'utf8')).toBe(await readFile(resolve('templates/prompts.config.ts'), 'utf8'));
    expect(JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')).scripts).toEqual({
      prepare: PREPARE_SCRIPT,
      'prompts:sync': 'promptlock sync',
    });

    const second = await cli(['init']);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('prompts.config.ts already exists');
  });

  it('add edits the config and syncs that prompt only', async () => {
    const run = await cli(['add', '@acme/onboarding']);
    expect(run.stderr).toContain('Added "@acme/onboarding" to prompts.config.ts');
    expect(run.code).toBe(0);
    expect(await readFile(join(dir, 'prompts.config.ts'), 'utf8')).toContain(
      "    // '@acme/experiment:draft',\n    '@acme/onboarding',\n  ],",
    );
    expect(await lockedNames()).toEqual(['@acme/onboarding']);

    expect((await cli(['add', '@acme/support-reply'])).code).toBe(0);
    expect(await lockedNames()).toEqual(['@acme/onboarding', '@acme/support-reply']);
  });

  it('add of a prompt the service does not have fails (404) and leaves the config as it was', async () => {
    const before = await readFile(join(dir, 'prompts.config.ts'), 'utf8');
    const run = await cli(['add', '@acme/no-such-prompt']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Prompt @acme/no-such-prompt was not found on the service (404)');
    expect(run.stderr).toContain('Restored prompts.config.ts as it was, since the sync failed.');
    expect(await readFile(join(dir, 'prompts.config.ts'), 'utf8')).toBe(before);
    expect(await lockedNames()).toEqual(['@acme/onboarding', '@acme/support-reply']);
  });

  it('add against a service that has nothing of the workspace blames the address, not the name', async () => {
    // What answers when the Quickstart's port is held by another `promptlock serve`, of another folder.
    const served = await mkdtemp(join(tmpdir(), 'promptlock-other-'));
    await mkdir(join(served, 'demo/hello'), { recursive: true });
    await writeFile(join(served, 'demo/hello/v1.md'), 'Hello');
    const other = await startServer({ dir: served, port: 0, keys: [{ key: KEY }] });
    try {
      const before = await readFile(join(dir, 'prompts.config.ts'), 'utf8');
      const run = await runBuiltCli(['add', '@acme/welcome'], {
        cwd: dir,
        env: { PROMPTLOCK_API_KEY: KEY, PROMPTLOCK_BASE_URL: other.url },
      });
      outputs.push(run.stdout, run.stderr);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `error: Prompt @acme/welcome was not found (404): the service at ${other.url} lists 1 prompt, none in workspace "acme" (1 workspace: "demo").`,
      );
      expect(run.stderr).toContain(
        'Check that baseUrl (or PROMPTLOCK_BASE_URL) is the service you mean, not another server on that address, and that your API key can read workspace "acme".',
      );
      expect(run.stderr).not.toContain('Check the name');
      expect(await readFile(join(dir, 'prompts.config.ts'), 'utf8')).toBe(before);
    } finally {
      await other.close();
      await removeDir(served);
    }
  });

  it('remove edits the config and a sync drops the prompt', async () => {
    const run = await cli(['remove', '@acme/onboarding']);
    expect(run.stderr).toContain('Removed "@acme/onboarding" from prompts.config.ts');
    expect(run.code).toBe(0);
    expect(await lockedNames()).toEqual(['@acme/support-reply']);
    await expect(readFile(join(dir, 'prompts/acme/onboarding.json'), 'utf8')).rejects.toThrow(/ENOENT/);
    expect(JSON.parse(await readFile(join(dir, 'prompts/acme/support-reply.json'), 'utf8')).packageName).toContain('@acme/support-reply');

    const last = await cli(['remove', '@acme/support-reply']);
    expect(last.code).toBe(2);
    expect(last.stderr).toContain('Not removing "@acme/support-reply": it is the last entry');
  });
});
