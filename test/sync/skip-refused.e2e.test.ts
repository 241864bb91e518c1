/**
 * One prompt never sinks a sync (README, "Placeholders"): under a glob or "every prompt", a prompt
 * the grammar or a limit refuses is skipped with its reason, field and line; one locked before stays
 * at its locked version (lock entry, snapshot and function); everything else lands, and the exit
 * code (3) and `--json` say so. An exact entry still fails, naming prompt, field, line and fix.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sync } from '../../src/library.js';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { storeTree } from '../helpers/project.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project, folder: servedFolder } = disposables();

const CONFLICT = 'You have {{count:number}} new messages.\nAt most {{count:string}} words.';
const functionOf = (module: string, name: string) => module.slice(module.indexOf(`export function ${name}(`)).split('\n}\n')[0];

describe('a glob over a workspace that holds a refused prompt', () => {
  it('lands every other prompt, keeps the refused one as it was locked, and exits 3', async () => {
    const folder = await servedFolder({
      'ws/alpha/v1.md': 'Alpha {{name}}',
      'ws/beta/v1.md': 'Beta',
      'ws/flaky/v1.md': 'Flaky {{count:number}}',
    });
    const server = await serve({ dir: folder });
    const dir = await project({ baseUrl: server.url, prompts: ['@ws/*'] });
    expect((await runCliInProcess(['sync'], { cwd: dir, env })).code).toBe(0);
    const modulePath = path.join(dir, 'src/generated/prompts.ts');
    const before = { lock: JSON.parse(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8')), tree: await storeTree(dir) };
    const flakyBefore = functionOf(await readFile(modulePath, 'utf8'), 'flaky');

    // The service now has a refused version of flaky, a new alpha, and a refused newcomer.
    await writeFile(path.join(folder, 'ws/flaky/v2.md'), CONFLICT);
    await writeFile(path.join(folder, 'ws/alpha/v2.md'), 'Alpha {{name}}, v2');
    await mkdir(path.join(folder, 'ws/newcomer'));
    await writeFile(path.join(folder, 'ws/newcomer/v1.md'), `Hi\n${CONFLICT}`);
    await server.reload();
    const run = await runCliInProcess(['sync'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain('~ @ws/alpha  v1 → v2');
    expect(run.stderr).toContain(
      'warning: skipped @ws/flaky (content line 2): Variable "count" has conflicting type hints: "number" at @ws/flaky content 1:10 and "string" at @ws/flaky content 2:9; it stays locked at v1; use one type for "count" everywhere it appears',
    );
    expect(run.stderr).toContain('warning: skipped @ws/newcomer (content line 3): Variable "count" has conflicting type hints');

    const lock = JSON.parse(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8'));
    expect(Object.keys(lock.prompts)).toEqual(['@ws/alpha', '@ws/beta', '@ws/flaky']);
    expect(lock.prompts['@ws/alpha'].version).toBe('v2');
    expect(lock.prompts['@ws/flaky']).toEqual(before.lock.prompts['@ws/flaky']);
    const tree = await storeTree(dir);
    expect(tree['prompts/ws/flaky.json']).toBe(before.tree['prompts/ws/flaky.json']);
    expect(tree['prompts/ws/newcomer.json']).toBeUndefined();
    expect(functionOf(await readFile(modulePath, 'utf8'), 'flaky')).toBe(flakyBefore);

    // Again with --json, nothing left to change: still skipped, still exit 3.
    const json = await runCliInProcess(['sync', '--json'], { cwd: dir, env });
    expect(json.code).toBe(3);
    const summary = JSON.parse(json.stdout);
    expect(summary.ok).toBe(true);
    expect(summary.skipped).toEqual([
      {
        name: '@ws/flaky',
        reason: 'Variable "count" has conflicting type hints: "number" at @ws/flaky content 1:10 and "string" at @ws/flaky content 2:9',
        refused: true,
        field: 'content',
        line: 2,
        fix: expect.stringMatching(/^use one type for "count" everywhere it appears.*"placeholders" option/),
        kept: 'v1',
      },
      expect.objectContaining({ name: '@ws/newcomer', refused: true, field: 'content', line: 3 }),
    ]);
    expect(await storeTree(dir)).toEqual(tree);
    // Nothing is out of step: check agrees with what the sync kept.
    expect((await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env })).code).toBe(0);
  });

  it('skips a prompt over a limit the same way, naming the field and the option', async () => {
    const folder = await servedFolder({ 'ws/small/v1.md': 'Small', 'ws/huge/v1.md': `Huge ${'x'.repeat(5_000)}` });
    const server = await serve({ dir: folder });
    const dir = await project({ baseUrl: server.url, limits: { promptBytes: 2_000 } });
    const run = await runCliInProcess(['sync', '--json'], { cwd: dir, env });
    expect(run.code).toBe(3);
    const summary = JSON.parse(run.stdout);
    expect(summary.added).toEqual([{ name: '@ws/small', to: 'v1' }]);
    expect(summary.skipped).toEqual([
      {
        name: '@ws/huge',
        reason: expect.stringMatching(/^field \(whole prompt\) is \d+ bytes, over the limit of 2000 \(option "limits.promptBytes"/),
        refused: true,
        field: '(whole prompt)',
        fix: 'raise "limits.promptBytes" in the config if this prompt is legitimate',
      },
    ]);
  });

  it("the library's pull-request report lists the refused prompt, and a changed prompt's placeholders kept as text", async () => {
    const folder = await servedFolder({ 'ws/alpha/v1.md': 'Alpha {{name}}', 'ws/flaky/v1.md': 'Flaky {{count:number}}' });
    const server = await serve({ dir: folder });
    const dir = await project({ baseUrl: server.url, prompts: ['@ws/*'] });
    await sync({ cwd: dir, env });
    await writeFile(path.join(folder, 'ws/flaky/v2.md'), CONFLICT);
    await writeFile(path.join(folder, 'ws/alpha/v2.md'), 'Alpha {{name}}, {{#each items}}');
    await server.reload();
    const result = await sync({ cwd: dir, env, report: true });
    expect(result.changed.map((c) => c.name)).toEqual(['@ws/alpha']);
    const body = result.report!.body;
    expect(result.report!.title).toBe('Update @ws/alpha to v2');
    expect(body).toContain(
      '- `@ws/flaky` (`content` line 2): `Variable "count" has conflicting type hints: "number" at @ws/flaky content 1:10 and "string" at @ws/flaky content 2:9`; it stays at v1, as locked before. To fix: `use one type for "count" everywhere it appears',
    );
    expect(body).toContain('- `@ws/alpha`: 1 placeholder kept as text: `{{#each items}}` (`content` line 1)');
  });

  it('`add` of a glob keeps the entry when a refused prompt was skipped', async () => {
    const folder = await servedFolder({ 'ws/alpha/v1.md': 'Alpha', 'other/good/v1.md': 'Good', 'other/bad/v1.md': CONFLICT });
    const server = await serve({ dir: folder });
    const dir = await project({ baseUrl: server.url, prompts: ['@ws/alpha'] });
    const run = await runCliInProcess(['add', '@other/*'], { cwd: dir, env });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('Added "@other/*"');
    expect(JSON.parse(await readFile(path.join(dir, 'prompts.config.json'), 'utf8')).prompts).toEqual(['@ws/alpha', '@other/*']);
    const lock = JSON.parse(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8'));
    expect(Object.keys(lock.prompts)).toEqual(['@other/good', '@ws/alpha']);
  });
});

describe('an exact entry for a refused prompt', () => {
  it('fails the sync, naming the prompt, the field, the line and the fix; nothing is written', async () => {
    const folder = await servedFolder({ 'ws/alpha/v1.md': 'Alpha', 'ws/flaky/v1.md': CONFLICT });
    const server = await serve({ dir: folder });
    const dir = await project({ baseUrl: server.url, prompts: ['@ws/alpha', '@ws/flaky'] });
    const run = await runCliInProcess(['sync'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error: Variable "count" has conflicting type hints: "number" at @ws/flaky content 1:10 and "string" at @ws/flaky content 2:9.',
    );
    expect(run.stderr).toContain('keep "count" as text in the "placeholders" option of the config');
    expect(await storeTree(dir)).toEqual({});

    // The fix it names works: the placeholders of "count" kept as text.
    const config = { baseUrl: server.url, prompts: ['@ws/alpha', '@ws/flaky'], placeholders: { '@ws/flaky': { text: ['count'] } } };
    await writeFile(path.join(dir, 'prompts.config.json'), JSON.stringify(config));
    expect((await runCliInProcess(['sync'], { cwd: dir, env })).code).toBe(0);
    const lock = JSON.parse(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8'));
    expect(lock.prompts['@ws/flaky']).toMatchObject({ placeholders: { text: ['count'] }, variables: [] });
  });
});
