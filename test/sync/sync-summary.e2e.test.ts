/**
 * What `sync`'s summary says, through the built CLI against `promptlock serve`: a package with only
 * a draft that a glob matched is skipped with one line (an exact entry still fails), and breaking
 * changes are marked first, as `diff` marks them.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project, folder: servedFolder } = disposables();

const SKIPPED = 'skipped @ws/idea: no published version yet; add "@ws/idea:draft" to follow its draft';

describe('a package with only a draft', () => {
  it('is skipped, with one line and in --json, when a glob or "every prompt" lists it', async () => {
    const folder = await servedFolder({ 'ws/hello/v1.md': 'Hi {{name}}', 'ws/idea/draft.md': 'An idea' });
    const server = await serve({ dir: folder });
    for (const prompts of [['@ws/*'], undefined]) {
      const dir = await project({ baseUrl: server.url, ...(prompts ? { prompts } : {}) });
      const run = await runBuiltCli(['sync'], { cwd: dir, env });
      expect(run.stderr).toContain(SKIPPED);
      expect(run.code).toBe(0);
      const lock = JSON.parse(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8'));
      expect(Object.keys(lock.prompts)).toEqual(['@ws/hello']);
      // Again, with nothing to change: still said.
      const json = await runBuiltCli(['sync', '--json'], { cwd: dir, env });
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout).skipped).toEqual([
        { name: '@ws/idea', reason: 'no published version yet', fix: 'add "@ws/idea:draft" to follow its draft' },
      ]);
    }
  });

  it('still fails an exact entry', async () => {
    const folder = await servedFolder({ 'ws/idea/draft.md': 'An idea' });
    const server = await serve({ dir: folder });
    const dir = await project({ baseUrl: server.url, prompts: ['@ws/idea'] });
    const run = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('@ws/idea exists, but has no published version on the service (404).');
    expect(run.stderr).toContain('follow its draft: ask for "@ws/idea:draft" in the config');
  });
});

describe('breaking changes in the sync summary', () => {
  it('marks a changed parameter and a removed function first, and --json carries them', async () => {
    const folder = await servedFolder({
      'ws/alpha/v1.md': 'Alpha, no variables',
      'ws/beta/v1.md': 'Beta {{name}}',
      'ws/gone/v1.md': 'Gone {{who}}',
    });
    const server = await serve({ dir: folder });
    const dir = await project({ baseUrl: server.url, prompts: ['@ws/alpha', '@ws/beta', '@ws/gone'] });
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);

    await writeFile(path.join(folder, 'ws/alpha/v2.md'), 'Alpha, still no variables');
    await writeFile(path.join(folder, 'ws/beta/v2.md'), 'Beta {{name}} {{count:number}}');
    await server.reload();
    await writeFile(path.join(dir, 'prompts.config.json'), JSON.stringify({ baseUrl: server.url, prompts: ['@ws/alpha', '@ws/beta'] }));
    const run = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(run.code).toBe(0);
    const lines = run.stderr.split('\n');
    const first = lines.findIndex((l) => l.includes('Synced'));
    expect(lines.slice(first + 1, first + 6)).toEqual([
      '  ~ @ws/beta  v1 → v2  BREAKING',
      "      breaking: its function's parameter changes (variables added: count)",
      '  - @ws/gone  BREAKING',
      '      breaking: its function leaves the generated module',
      '  ~ @ws/alpha  v1 → v2',
    ]);

    // The same through --json, from a fresh start at the old state.
    await rm(path.join(folder, 'ws/beta/v2.md'));
    await writeFile(path.join(folder, 'ws/beta/v3.md'), 'Beta {{name:number}} {{count:number}}');
    await server.reload();
    const json = await runBuiltCli(['sync', '--json'], { cwd: dir, env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).breaking).toEqual([
      {
        name: '@ws/beta',
        added: [],
        removed: [],
        retyped: ['name: string → number'],
        message: "its function's parameter changes (variables retyped: name: string → number)",
      },
    ]);
  });
});

describe('a module with git conflict markers', () => {
  it('is rewritten from lockfile and snapshots, and the summary says so', async () => {
    const folder = await servedFolder({ 'ws/alpha/v1.md': 'Alpha {{name}}', 'ws/beta/v1.md': 'Beta' });
    const server = await serve({ dir: folder });
    const dir = await project({ baseUrl: server.url, prompts: ['@ws/alpha', '@ws/beta'] });
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
    const modulePath = path.join(dir, 'src/generated/prompts.ts');
    const clean = await readFile(modulePath, 'utf8');
    const lines = clean.split('\n');
    // What git leaves when two branches changed the same lines of the module.
    const conflicted = [...lines.slice(0, 5), '<<<<<<< HEAD', lines[5], '=======', '// theirs', '>>>>>>> feature', ...lines.slice(6)];
    await writeFile(modulePath, conflicted.join('\n'));

    const run = await runBuiltCli(['sync', '--json'], { cwd: dir, env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).conflictedModule).toEqual(['src/generated/prompts.ts']);
    expect(await readFile(modulePath, 'utf8')).toBe(clean);

    await writeFile(modulePath, conflicted.join('\n'));
    const text = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(text.stderr).toContain('Rewrote src/generated/prompts.ts, which had git conflict markers, from the lockfile and snapshots');
    const again = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(again.stderr).not.toContain('conflict');
  });

  it("are never a prompt text that reads like them: no notice for a coding agent's edit format", async () => {
    const edit = 'Edit {{file}}:\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n|||||||\nend';
    const folder = await servedFolder({ 'ws/agent/v1.md': edit, 'ws/other/v1.md': 'Other' });
    const server = await serve({ dir: folder });
    const dir = await project({ baseUrl: server.url, prompts: ['@ws/agent', '@ws/other'] });
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
    const modulePath = path.join(dir, 'src/generated/prompts.ts');
    // Each line that reads like a marker starts with a backslash in the module (`\<` is `<`).
    expect(await readFile(modulePath, 'utf8')).toContain('\\<<<<<<< SEARCH\nold\n\\=======\nnew\n\\>>>>>>> REPLACE\n\\|||||||\nend');
    // A sync that rewrites the module (a new version of the other prompt) says nothing of conflicts.
    await writeFile(path.join(folder, 'ws/other/v2.md'), 'Other, v2');
    await server.reload();
    const run = await runBuiltCli(['sync', '--json'], { cwd: dir, env });
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary.written).toContain('src/generated/prompts.ts');
    expect(summary.conflictedModule).toBeUndefined();
  });
});
