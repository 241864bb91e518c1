/**
 * `promptlock remove` touches only what it removes (README, "Commands"): the entry leaves the
 * config, its lock entry, snapshot and context files leave the store and its function the module,
 * in one commit; an upstream change to another prompt (a breaking one included) is not pulled, and
 * no request is sent. In process, against the real local service.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { storeTree } from '../helpers/project.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project, folder } = disposables();

const lockOf = async (dir: string) => JSON.parse(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8')).prompts;
const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

describe('remove', () => {
  it('drops the prompt and its files, pulls no upstream change of the others, and sends no request', async () => {
    const served = await folder({
      'ws/alpha/v1.md': 'Alpha {{name}}',
      'ws/beta/v1.md': 'Beta {{name}}',
      'ws/gamma/v1.md': 'Gamma',
      'ws/gamma/prompt.json': JSON.stringify({ context: [{ type: 'file', label: 'Menu', file: 'files/menu.txt' }] }),
      'ws/gamma/files/menu.txt': 'Soup of the day',
    });
    const server = await serve({ dir: served });
    const dir = await project({ baseUrl: server.url, prompts: ['@ws/alpha', '@ws/beta', '@ws/gamma'], contextFiles: true });
    expect((await runCliInProcess(['sync'], { cwd: dir, env })).code).toBe(0);
    const gammaFile = path.join(dir, 'prompts/ws/gamma.files');
    expect(await exists(gammaFile)).toBe(true);
    const before = await storeTree(dir);

    // Upstream, beta changes in a way that breaks its callers, and alpha changes too.
    await writeFile(path.join(served, 'ws/beta/v2.md'), 'Beta {{name}} {{count:number}}');
    await writeFile(path.join(served, 'ws/alpha/v2.md'), 'Alpha v2 {{name}}');
    await server.reload();

    const run = await runCliInProcess(['remove', '@ws/gamma', '--json'], { cwd: dir, env });
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect({ removed: summary.removed, changed: summary.changed, added: summary.added, requests: summary.requests }).toEqual({
      removed: [{ name: '@ws/gamma', from: 'v1' }],
      changed: [],
      added: [],
      requests: 0,
    });
    expect(JSON.parse(await readFile(path.join(dir, 'prompts.config.json'), 'utf8')).prompts).toEqual(['@ws/alpha', '@ws/beta']);

    const lock = await lockOf(dir);
    expect(Object.keys(lock)).toEqual(['@ws/alpha', '@ws/beta']);
    expect([lock['@ws/alpha'].version, lock['@ws/beta'].version]).toEqual(['v1', 'v1']);
    expect(await exists(path.join(dir, 'prompts/ws/gamma.json'))).toBe(false);
    expect(await exists(gammaFile)).toBe(false);
    // Every other file is as it was, byte for byte; the module lost gamma's function only.
    const after = await storeTree(dir);
    const changed = Object.keys({ ...before, ...after }).filter((file) => before[file] !== after[file]);
    expect(changed.sort()).toEqual([
      'prompts.lock.json',
      'prompts/ws/gamma.files/menu.txt',
      'prompts/ws/gamma.json',
      'src/generated/prompts.ts',
    ]);
    const module = await readFile(path.join(dir, 'src/generated/prompts.ts'), 'utf8');
    expect(module).not.toContain('gamma');
    expect(module).toContain('export function beta');
  });

  it('prints the removal as sync prints it, and offline: the service may be down', async () => {
    const served = await folder({ 'ws/alpha/v1.md': 'Alpha {{name}}', 'ws/beta/v1.md': 'Beta' });
    const server = await serve({ dir: served });
    const dir = await project({ baseUrl: server.url, prompts: ['@ws/alpha', '@ws/beta'] });
    expect((await runCliInProcess(['sync'], { cwd: dir, env })).code).toBe(0);
    await server.close();

    const run = await runCliInProcess(['remove', '@ws/alpha'], { cwd: dir, env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Removed "@ws/alpha" from prompts.config.json');
    const lines = run.stderr.split('\n');
    const first = lines.findIndex((line) => line.includes('Synced'));
    expect(lines[first]).toMatch(/Synced 1 prompt in [\d.]+ s: 0 added, 0 changed, 1 removed, 1 unchanged \(0 requests\)$/);
    expect(lines.slice(first + 1, first + 3)).toEqual([
      '  - @ws/alpha  BREAKING',
      '      breaking: its function leaves the generated module',
    ]);
    expect(Object.keys(await lockOf(dir))).toEqual(['@ws/beta']);
  });

  it('resolves again, by name, a kept prompt that a remaining glob now asks for at another selector', async () => {
    const served = await folder({ 'ws/alpha/v1.md': 'Alpha', 'ws/beta/v1.md': 'Beta' });
    const server = await serve({ dir: served });
    const dir = await project({ baseUrl: server.url, prompts: ['@ws/*', '@ws/alpha:v1'] });
    expect((await runCliInProcess(['sync'], { cwd: dir, env })).code).toBe(0);
    await writeFile(path.join(served, 'ws/alpha/v2.md'), 'Alpha, second');
    await writeFile(path.join(served, 'ws/beta/v2.md'), 'Beta, second');
    await server.reload();

    const run = await runCliInProcess(['remove', '@ws/alpha:v1'], { cwd: dir, env });
    expect(run.code).toBe(0);
    const lock = await lockOf(dir);
    // alpha now floats with the glob (v2); beta, which the glob also covers, is not pulled.
    expect([lock['@ws/alpha'].selector, lock['@ws/alpha'].version, lock['@ws/beta'].version]).toEqual(['latest', 'v2', 'v1']);
    expect((await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env })).code).toBe(0);
  });
});
