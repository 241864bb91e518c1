/**
 * Item 11: reviews see breaking changes first. `diff` (text, markdown, --json) marks a prompt whose
 * generated function signature changes as breaking and lists it first; timestamps fold to one line.
 * Built CLI against two runs of `promptlock serve` on a folder of snapshots (before and after).
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { encodeSnapshot } from '../../src/store/snapshot-format.js';
import type { Prompt } from '../../src/types.js';
import { runCliInProcess as runBuiltCli, type ServeProcess, startServe } from '../helpers/cli.js';
import { makeProject, removeDir } from '../helpers/project.js';

function prompt(pkg: string, version: number, content: string, time: number): Prompt {
  return {
    id: `pmt_${pkg}`,
    title: pkg,
    content,
    description: null,
    category: 'demo',
    tags: [],
    version: `v${version}`,
    workspaceSlug: 'ws',
    packageName: `@ws/${pkg}:v${version}`,
    context: [{ id: `ctx_${pkg}`, type: 'url', label: 'Docs', createdAt: time, url: 'https://example.com/docs', urlFetchedAt: time + 5 }],
    metadata: { createdAt: time },
  };
}

async function writeFolder(dir: string, prompts: Prompt[]): Promise<void> {
  await mkdir(path.join(dir, 'ws'), { recursive: true });
  for (const p of prompts) await writeFile(path.join(dir, 'ws', `${p.title}.json`), encodeSnapshot(p));
}

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const dirs: string[] = [];
let project: string;
let after: ServeProcess;

beforeAll(async () => {
  const before = await mkdtemp(path.join(tmpdir(), 'promptlock-diff-before-'));
  const later = await mkdtemp(path.join(tmpdir(), 'promptlock-diff-after-'));
  dirs.push(before, later);
  // alpha: a text edit, same variables, new timestamps. mike: retyped. zulu: a variable added.
  await writeFolder(before, [
    prompt('alpha', 1, 'Hi {{name}}.', 1_700_000_000_000),
    prompt('mike', 1, 'Count {{n:string}}.', 1_700_000_000_000),
    prompt('zulu', 1, 'Hello {{name}}.', 1_700_000_000_000),
  ]);
  await writeFolder(later, [
    prompt('alpha', 2, 'Hi {{name}}, welcome back.', 1_800_000_000_000),
    prompt('mike', 2, 'Count {{n:number}}.', 1_700_000_000_000),
    prompt('zulu', 2, 'Hello {{name}}, you have {{count:number}} messages.', 1_700_000_000_000),
  ]);
  const first = await startServe(['--dir', before], before);
  project = await makeProject({ prompts: ['@ws/*'] });
  dirs.push(project);
  try {
    const sync = await runBuiltCli(['sync'], { cwd: project, env: { ...env, PROMPTLOCK_BASE_URL: first.url } });
    expect(sync.code).toBe(0);
  } finally {
    await first.stop();
  }
  after = await startServe(['--dir', later], later);
});
afterAll(async () => {
  await after?.stop();
  for (const dir of dirs) await removeDir(dir);
});

const diff = (...args: string[]) => runBuiltCli(['diff', ...args], { cwd: project, env: { ...env, PROMPTLOCK_BASE_URL: after.url } });

describe('diff', () => {
  it('text: breaking prompts first, marked and explained; timestamps on one line', async () => {
    const run = await diff();
    expect(run.code).toBe(0);
    const titles = run.stdout.split('\n').filter((line) => /^[~+-] @/.test(line));
    expect(titles).toEqual(['~ @ws/mike  v1 → v2  BREAKING', '~ @ws/zulu  v1 → v2  BREAKING', '~ @ws/alpha  v1 → v2']);
    expect(run.stdout).toContain("  breaking: its function's parameter changes (variables added: count)");
    expect(run.stdout).toContain("  breaking: its function's parameter changes (variables retyped: n: string → number)");
    expect(run.stdout).toContain('  timestamps changed: context[0].createdAt, context[0].urlFetchedAt, metadata.createdAt');
    expect(run.stdout).not.toMatch(/"createdAt"|"urlFetchedAt"/);
  });

  it('markdown: the breaking count in the title, breaking sections first', async () => {
    const run = await diff('--format', 'markdown');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^## Prompt changes \(3, 2 breaking\)\n/);
    const sections = run.stdout.split('\n').filter((line) => line.startsWith('### '));
    expect(sections).toEqual([
      '### ⚠️ **Breaking** `@ws/mike` — v1 → v2',
      '### ⚠️ **Breaking** `@ws/zulu` — v1 → v2',
      '### `@ws/alpha` — v1 → v2',
    ]);
    expect(run.stdout).toContain('_Timestamps changed:_ `context[0].createdAt`, `context[0].urlFetchedAt`, `metadata.createdAt`');
  });

  it('--json: breaking details and folded timestamps', async () => {
    const run = await diff('--json');
    expect(run.code).toBe(0);
    const { changes } = JSON.parse(run.stdout) as {
      changes: Array<{ name: string; breaking?: unknown; timestamps?: string[]; fields: Array<{ field: string }> }>;
    };
    expect(changes.map((c) => [c.name, c.breaking])).toEqual([
      ['@ws/mike', { added: [], removed: [], retyped: ['n: string → number'] }],
      ['@ws/zulu', { added: ['count'], removed: [], retyped: [] }],
      ['@ws/alpha', undefined],
    ]);
    expect(changes[2]!.timestamps).toEqual(['context[0].createdAt', 'context[0].urlFetchedAt', 'metadata.createdAt']);
    expect(changes[2]!.fields.map((f) => f.field)).toEqual(['content']);
  });
});
