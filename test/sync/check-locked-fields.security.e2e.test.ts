/**
 * Finding 7: `check` compares every locked field (version, id, variables, integrity, context files,
 * the selector's promise) with the snapshot, and the module with what the snapshots imply. The
 * attack: edit a field of the lockfile in a pull request, run `generate --force` so the module agrees
 * with the lie, and check used to pass.
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project } = disposables();

type Entry = {
  selector: string | null;
  version: string;
  id: string;
  integrity: string;
  variables: Array<{ name: string; type: string }>;
  files?: Record<string, { path: string; size: number; integrity: string }>;
};
type Lock = { prompts: Record<string, Entry> };

let synced: string;
let pinned: string;
beforeAll(async () => {
  const server = await serve({ dir: path.resolve('examples/workspace') });
  synced = await project({ baseUrl: server.url, prompts: ['@acme/support-reply', '@acme/welcome'], contextFiles: true });
  expect((await runBuiltCli(['sync'], { cwd: synced, env })).code).toBe(0);
  pinned = await project({ baseUrl: server.url, prompts: ['@acme/support-reply:v2'] });
  expect((await runBuiltCli(['sync'], { cwd: pinned, env })).code).toBe(0);
});

/** A copy of `from` whose lockfile went through `edit`, with the module rebuilt to agree with it. */
async function tampered(from: string, edit: (entry: Entry) => void): Promise<string> {
  const dir = await project({});
  await cp(from, dir, { recursive: true });
  const file = path.join(dir, 'prompts.lock.json');
  const lock = JSON.parse(await readFile(file, 'utf8')) as Lock;
  edit(lock.prompts['@acme/support-reply']!);
  await writeFile(file, `${JSON.stringify(lock, null, 2)}\n`);
  const generate = await runBuiltCli(['generate', '--force'], { cwd: dir, env: {} });
  expect(generate.code, generate.stderr).toBe(0);
  return dir;
}

describe('check compares every locked field with the snapshot', () => {
  it('the untouched store passes', async () => {
    const run = await runBuiltCli(['check', '--no-typecheck'], { cwd: synced, env: {} });
    expect(run.code, run.stderr).toBe(0);
  });

  it.each<[string, (entry: Entry) => void, string[]]>([
    [
      'version',
      (e) => {
        e.version = 'v9';
      },
      ['the lockfile\'s version "v9" does not match its snapshot ("v3")'],
    ],
    [
      'id',
      (e) => {
        e.id = 'pmt_someone_else';
      },
      ['the lockfile\'s id "pmt_someone_else" does not match its snapshot'],
    ],
    [
      'variables',
      (e) => {
        e.variables = e.variables.slice(1);
      },
      ["the lockfile's variables do not match its snapshot"],
    ],
    [
      'integrity',
      (e) => {
        e.integrity = 'sha256-AAAA';
      },
      ['does not match the lockfile (integrity'],
    ],
    [
      'an extra locked context file',
      (e) => {
        e.files = { ...e.files, ctx_bogus: Object.values(e.files!)[0]! };
      },
      ['the lockfile locks context file "ctx_bogus", which its snapshot does not have'],
    ],
    ['a context file left out of the lock', (e) => void delete e.files, ['of its snapshot is not locked']],
    [
      'a context file size',
      (e) => {
        Object.values(e.files!)[0]!.size += 1;
      },
      ['bytes, the lockfile says'],
    ],
  ])('a lockfile edited in its %s fails check, even with a module rebuilt from it', async (_field, edit, messages) => {
    const dir = await tampered(synced, edit);
    const run = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('@acme/support-reply: ');
    for (const message of messages) expect(run.stderr).toContain(message);
  });

  it('a version edit also makes the module rebuilt from the lockfile differ from what the snapshots imply', async () => {
    const dir = await tampered(synced, (e) => {
      e.version = 'v9';
    });
    const run = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(run.stderr).toContain('does not match the snapshots');
  });

  it('a pinned selector must answer its own version', async () => {
    const dir = await tampered(pinned, (e) => {
      e.version = 'v3';
    });
    const run = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('@acme/support-reply: locked for selector v2, but its version is v3');
  });
});
