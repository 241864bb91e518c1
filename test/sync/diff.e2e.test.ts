/**
 * `promptlock diff` through the built CLI against `promptlock serve`: `--exit-code` says whether
 * sync would change anything, and a prompt whose every line changed is diffed in bounded time with
 * an honest "text replaced" line.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project, folder: servedFolder } = disposables();

describe('diff --exit-code', () => {
  it('exits 0 when nothing would change and 1 when something would, as git diff --exit-code', async () => {
    const folder = await servedFolder({ 'ws/hello/v1.md': 'Hi {{name}}' });
    const server = await serve({ dir: folder });
    const dir = await project({ baseUrl: server.url, prompts: ['@ws/hello'] });
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
    const same = await runBuiltCli(['diff', '--exit-code'], { cwd: dir, env });
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('No changes');

    await writeFile(path.join(folder, 'ws/hello/v2.md'), 'Hello {{name}}');
    await server.reload();
    const changed = await runBuiltCli(['diff', '--exit-code'], { cwd: dir, env });
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('~ @ws/hello  v1 → v2');
    expect((await runBuiltCli(['diff', '--exit-code', '--json'], { cwd: dir, env })).code).toBe(1);
    // Without the flag, a diff that found changes still succeeds.
    expect((await runBuiltCli(['diff'], { cwd: dir, env })).code).toBe(0);
  });
});

describe('a prompt whose every line changed', () => {
  it('diffs 60,000 changed lines in bounded time, saying the text was replaced', async () => {
    const text = (word: string) => Array.from({ length: 60_000 }, (_, i) => `${word} ${i} text`).join('\n');
    const folder = await servedFolder({ 'ws/big/v1.md': text('old') });
    const server = await serve({ dir: folder });
    const dir = await project({ baseUrl: server.url, prompts: ['@ws/big'] });
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
    await writeFile(path.join(folder, 'ws/big/v2.md'), text('new'));
    await server.reload();

    const started = performance.now();
    const run = await runBuiltCli(['diff'], { cwd: dir, env });
    const seconds = (performance.now() - started) / 1000;
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('content: text replaced: 60,000 lines → 60,000 lines');
    // 300 s and more before; 1.0 s measured here (the CLI's start and the dry-run sync included).
    expect(seconds).toBeLessThan(8);
    const markdown = await runBuiltCli(['diff', '--format', 'markdown'], { cwd: dir, env });
    expect(markdown.stdout).toContain('**content**: text replaced: 60,000 lines → 60,000 lines');
  }, 90_000);
});
