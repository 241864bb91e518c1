/**
 * Security regression (issue 19, item 1; issue 30, item 4): a journal planted in `.promptlock/`
 * (committed with `git add -f`, say) may touch promptlock's own files only, by paths relative to the
 * project, and never supplies the module. Anything else refuses the whole journal with an error
 * naming the path, from `sync` and `check`. `generate` (so `prepare` on every `npm install`, and
 * every bundler build) applies no journal at all: only `sync` finishes one. The CLI in this
 * process (a built CLI only for the run that is killed), the real local service, real files.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY, type RunningServer } from '../../src/server/index.js';
import type { JournalOp } from '../../src/store/journal-file.js';
import { decodeLockfile, encodeLockfile } from '../../src/store/lockfile-format.js';
import { runBuiltCli, runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { writeJournalFile } from '../helpers/journal.js';
import { removeDir, storeTree } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project, defer } = disposables();
const MODULE = 'src/generated/prompts.ts';

let server: RunningServer;
/** Synced once; each test changes a copy of it. */
let base: string;
beforeAll(async () => {
  const folder = await writeServedFolder(undefined, 3, 1);
  defer(() => removeDir(folder));
  server = await serve({ dir: folder });
  base = await project({ baseUrl: server.url, prompts: ['@bulk/*'] });
  const run = await runCliInProcess(['sync'], { cwd: base, env });
  expect(run.code, run.stderr).toBe(0);
  await mkdir(path.join(base, 'docs'));
  await writeFile(path.join(base, 'docs/a.md'), 'keep\n');
  await writeFile(path.join(base, 'src/app.ts'), 'export const app = 1;\n');
  await mkdir(path.join(base, '.git'));
  await writeFile(path.join(base, '.git/config'), '[core]\n');
});

/** A synced project (a copy of `base`) with files a planted journal would like to reach. */
async function synced(): Promise<string> {
  const dir = await project({});
  await cp(base, dir, { recursive: true });
  return dir;
}

/** Every file of the project but promptlock's work folder: what a refused journal must leave as it was. */
const everything = async (dir: string) => {
  const tree = await storeTree(dir);
  for (const file of ['docs/a.md', 'src/app.ts', '.git/config']) tree[file] = await readFile(path.join(dir, file), 'utf8');
  return tree;
};

/** The repro of the issue, as given: a journal of absolute paths written by hand, checksum and all. */
function plantIssueRepro(dir: string): void {
  const script = `const fs=require("fs"),c=require("crypto");const R=process.argv[1],body=Buffer.from("pwned()\\n");
const first=n=>Buffer.from("promptlock-journal 2 "+String(n).padStart(16,"0")+"\\n");const at=first(0).length;
const header=Buffer.from(JSON.stringify({ops:[{kind:"write",target:R+"/src/app.ts",at,size:body.length},{kind:"delete",target:R+"/docs"}]})+"\\n");
const fl=first(at+body.length);const d=c.createHash("sha256").update(body).update(header).update(fl).digest("hex");
fs.mkdirSync(".promptlock",{recursive:true});fs.writeFileSync(".promptlock/tx-1-1.journal",Buffer.concat([fl,body,header,Buffer.from("end "+d+"\\n")]));`;
  execFileSync(process.execPath, ['-e', script, dir], { cwd: dir });
}

describe('a planted journal is refused whole', () => {
  it("the issue's repro: generate applies nothing of it, sync and check refuse it, naming the path; src/app.ts and docs/ stay", async () => {
    const dir = await synced();
    const before = await everything(dir);
    plantIssueRepro(dir);
    const generate = await runCliInProcess(['generate'], { cwd: dir, env: {} });
    expect(generate.code, generate.stderr).toBe(0);
    expect(await everything(dir)).toEqual(before);
    const run = await runCliInProcess(['sync'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('Refusing to apply .promptlock/tx-1-1.journal');
    expect(run.stderr).toContain(JSON.stringify(`${dir}/src/app.ts`));
    expect(await everything(dir)).toEqual(before);
    const check = await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('.promptlock/tx-1-1.journal');
    expect(await everything(dir)).toEqual(before);
    // Removed as the error says: every command works again.
    await rm(path.join(dir, '.promptlock/tx-1-1.journal'));
    expect((await runCliInProcess(['generate'], { cwd: dir, env: {} })).code).toBe(0);
    expect((await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} })).code).toBe(0);
  });

  it.each<[string, (dir: string) => JournalOp, string]>([
    ['a path outside the project', () => ({ kind: 'write', target: '../outside.txt' }), '../outside.txt'],
    ['an absolute path inside the project', (dir) => ({ kind: 'write', target: `${dir}/prompts.lock.json` }), '/prompts.lock.json'],
    ['a path through ..', () => ({ kind: 'write', target: 'prompts/../src/app.ts' }), 'prompts/../src/app.ts'],
    ['.git/config', () => ({ kind: 'write', target: '.git/config' }), '.git/config'],
    ['package.json', () => ({ kind: 'write', target: 'package.json' }), 'package.json'],
    ['a source file', () => ({ kind: 'write', target: 'src/app.ts' }), 'src/app.ts'],
    ['a delete of the snapshots folder', () => ({ kind: 'delete', target: 'prompts' }), 'delete "prompts"'],
    ['a delete of a workspace folder', () => ({ kind: 'delete', target: 'prompts/bulk' }), 'delete "prompts/bulk"'],
    ['a delete of a file outside the snapshots folder', () => ({ kind: 'delete', target: 'docs/a.md' }), 'delete "docs/a.md"'],
    ['a delete of the lockfile', () => ({ kind: 'delete', target: 'prompts.lock.json' }), 'delete "prompts.lock.json"'],
  ])('%s: refused, naming it, and nothing of the journal is applied', async (_name, opOf, named) => {
    const dir = await synced();
    const before = await everything(dir);
    const snapshot = 'prompts/bulk/prompt-0000.json';
    // A valid write first: refused with the rest.
    const op = opOf(dir);
    await writeJournalFile(
      dir,
      [{ kind: 'write', target: snapshot }, op],
      ['{"planted": true}\n', op.kind === 'write' ? 'pwned()\n' : undefined],
    );
    const run = await runCliInProcess(['sync'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Refusing to apply .promptlock/tx-1-1.journal');
    expect(run.stderr).toContain(named);
    expect(run.stderr).toContain("not promptlock's own");
    expect(await everything(dir)).toEqual(before);
    await expect(stat(path.join(dir, '..', 'outside.txt'))).rejects.toThrow();
    expect(await readdir(path.join(dir, '.promptlock'))).toContain('tx-1-1.journal'); // left for the user to look at
  });
});

describe('the module is never taken from a journal', () => {
  it('a journal whose module op carries code: generate applies nothing of it; sync applies its prompt data and generates the module itself', async () => {
    for (const command of [['generate'], ['sync']]) {
      const dir = await synced();
      const module = await readFile(path.join(dir, MODULE), 'utf8');
      // Prompt data a real run could commit: prompt-0002 dropped from the lockfile, its snapshot deleted.
      const lockfile = decodeLockfile(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8'), 'prompts.lock.json');
      const dropped = lockfile.prompts['@bulk/prompt-0002']!.exportName!;
      delete lockfile.prompts['@bulk/prompt-0002'];
      const stray = 'prompts/bulk/prompt-0002.json';
      await writeJournalFile(
        dir,
        [
          { kind: 'write', target: 'prompts.lock.json' },
          { kind: 'write', target: MODULE },
          { kind: 'delete', target: stray, prune: true },
        ],
        [encodeLockfile(lockfile), `${module}\nimport('node:child_process').then((c) => c.execSync('touch pwned'));\n`, undefined],
      );
      const run = await runCliInProcess(command, { cwd: dir, env });
      expect(run.code, run.stderr).toBe(0);
      const after = await readFile(path.join(dir, MODULE), 'utf8');
      expect(after).not.toContain('child_process');
      if (command[0] === 'generate') {
        // Nothing of it applied: the module and the snapshot as they were, the journal left for sync, and said so.
        expect(after).toBe(module);
        expect(after).toContain(`function ${dropped}(`);
        await stat(path.join(dir, stray));
        expect(await readdir(path.join(dir, '.promptlock'))).toContain('tx-1-1.journal');
        expect(run.stderr).toContain('only `promptlock sync` finishes');
        continue;
      }
      expect(await readdir(path.join(dir, '.promptlock'))).not.toContain('tx-1-1.journal');
      const check = await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} });
      expect(check.stderr).not.toMatch(/module-stale|does not match the snapshots/);
    }
  });
});

describe('check never reads through a pending journal', () => {
  it('a run killed at its commit point: check fails, naming the journal, until sync completes it (generate does not)', async () => {
    const dir = await synced();
    await writeFile(
      path.join(dir, 'prompts.config.json'),
      JSON.stringify({ baseUrl: server.url, prompts: ['@bulk/prompt-0000', '@bulk/prompt-0001'] }),
    );
    const killed = await runBuiltCli(['sync'], { cwd: dir, env: { ...env, PROMPTLOCK_FAILPOINT_APPLY: '0' } });
    expect(killed.signal).toBe('SIGKILL');
    const check = await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(/an interrupted sync left committed writes in \.promptlock\/tx-[^ ]+\.journal/);
    const generate = await runCliInProcess(['generate'], { cwd: dir, env: {} });
    expect(generate.code, generate.stderr).toBe(0);
    expect(generate.stderr).toContain('only `promptlock sync` finishes');
    expect((await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} })).code).toBe(1);
    const sync = await runCliInProcess(['sync'], { cwd: dir, env });
    expect(sync.code, sync.stderr).toBe(0);
    const after = await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(after.code, after.stderr).toBe(0);
  });
});
