/**
 * Small things a user reads, through the built CLI against `promptlock serve`: counts in the
 * singular, `sync --frozen` saying what it does, one fix for a broken snapshot in `check` and
 * `generate`, project-relative paths in `check`, and `add` claiming success only after its sync.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project } = disposables();
const WORKSPACE = path.resolve('examples/workspace');

describe('messages', () => {
  it('counts one prompt as "1 prompt", and sync --frozen says it verifies', async () => {
    const server = await serve({ dir: WORKSPACE });
    const dir = await project({ baseUrl: server.url, prompts: ['@acme/welcome'] });
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
    const check = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(check.stderr).toContain('✔ 1 prompt checked: lockfile, snapshots and module agree');
    const frozen = await runBuiltCli(['sync', '--frozen'], { cwd: dir, env: {} });
    expect(frozen.code).toBe(0);
    expect(frozen.stderr).toContain('Verifying 1 prompt…');
    expect(frozen.stderr).not.toContain('Fetching');
  });

  it('check and generate give the same fix for a broken snapshot, and that fix works', async () => {
    const server = await serve({ dir: WORKSPACE });
    const dir = await project({ baseUrl: server.url, prompts: ['@acme/welcome'] });
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
    await writeFile(path.join(dir, 'prompts/acme/welcome.json'), '{');
    const fix = 'restore the snapshot from git, or run `promptlock sync --frozen` to download the locked version again';
    const check = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(check.stderr).toContain(`: ${fix}`);
    const generate = await runBuiltCli(['generate', '--force'], { cwd: dir, env: {} });
    expect(generate.code).toBe(1);
    expect(generate.stderr).toContain(`R${fix.slice(1)}.`);
    expect((await runBuiltCli(['sync', '--frozen'], { cwd: dir, env })).code).toBe(0);
    expect((await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} })).code).toBe(0);
  });

  it('check names a damaged lockfile by its path in the project, as every other problem', async () => {
    const dir = await project({ prompts: ['@acme/welcome'] });
    await writeFile(path.join(dir, 'prompts.lock.json'), '{bad');
    const check = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('Lockfile prompts.lock.json is not valid JSON');
    expect(check.stderr).not.toContain(dir);
  });

  it('add says it added an entry only once the sync succeeded', async () => {
    const server = await serve({ dir: WORKSPACE });
    const dir = await project({ baseUrl: server.url, prompts: ['@acme/welcome'] });
    const config = await readFile(path.join(dir, 'prompts.config.json'), 'utf8');
    const failed = await runBuiltCli(['add', '@acme/no-such-prompt'], { cwd: dir, env });
    expect(failed.code).toBe(1);
    expect(failed.stderr).not.toContain('✔');
    expect(failed.stderr).toContain('Restored prompts.config.json as it was, since the sync failed.');
    expect(await readFile(path.join(dir, 'prompts.config.json'), 'utf8')).toBe(config);

    const added = await runBuiltCli(['add', '@acme/summarize'], { cwd: dir, env });
    expect(added.code).toBe(0);
    const lines = added.stderr.trim().split('\n');
    expect(lines.at(-1)).toBe('✔ Added "@acme/summarize" to prompts.config.json');
  });
});
