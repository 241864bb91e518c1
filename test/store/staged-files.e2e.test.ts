/**
 * Downloaded context files are staged in `.promptlock/` and moved into place by the journal (a
 * `move` op): a SIGKILL before the commit point leaves the previous files, one after it is rolled
 * forward by the next run (`check` names the committed journal in between, and is green before
 * the commit point), and no staged file is left behind. A journal whose move names a file other
 * than its own staged ones is refused whole. The killed runs are processes of the built CLI; every
 * other command runs in this one.
 */
import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runBuiltCli, runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { ACME_NAME, acmePrompt, hostileService, json } from '../helpers/hostile-network.js';
import { resealJournal } from '../helpers/journal.js';
import { storeTree } from '../helpers/project.js';

const { project } = disposables();
const KEY = `sk_live_${'StagedKey'.padEnd(38, 'q')}wxyz`;
const env = { PROMPTLOCK_API_KEY: KEY };

/** The file of each revision: about 300 KiB, different bytes and size (a file of the same size and path is reused). */
const fileOf = (revision: number) => Buffer.alloc(300 * 1024 + revision, `revision ${revision} `);
const state = { revision: 1 };

const service = hostileService((req, res, self) => {
  const file = fileOf(state.revision);
  if (req.url === '/v1/prompts/get') {
    json(
      res,
      200,
      acmePrompt({
        version: `v${state.revision}`,
        context: [
          {
            id: 'ctx_doc',
            type: 'file',
            label: 'doc',
            fileName: 'doc.bin',
            fileSize: file.length,
            mimeType: 'application/octet-stream',
            createdAt: 1,
          },
        ],
      }),
    );
  } else if (req.url!.startsWith('/api/v1/prompts/context/download-url')) {
    json(res, 200, { url: `${self}/bucket/doc?sig=s`, expiresIn: 300 });
  } else if (req.url!.startsWith('/bucket/')) {
    res.writeHead(200, { 'content-length': String(file.length) });
    res.end(file);
  } else {
    json(res, 404, { error: { code: 'not_found', message: 'no' } });
  }
});

/** What a run left in the work folder, but its .gitignore. */
const workFiles = async (dir: string) =>
  (await readdir(path.join(dir, '.promptlock')).catch(() => [] as string[])).filter((name) => name !== '.gitignore');

describe('a context file moved into place by the journal', () => {
  let url: string;
  let stateA: string;
  let treeA: Record<string, string>;
  let treeB: Record<string, string>;

  beforeAll(async () => {
    url = (await service()).url;
    state.revision = 1;
    stateA = await project({ baseUrl: url, prompts: [ACME_NAME], contextFiles: true });
    expect((await runCliInProcess(['sync'], { cwd: stateA, env })).code).toBe(0);
    treeA = await storeTree(stateA);
    state.revision = 2;
    const clean = await project({ baseUrl: url, prompts: [ACME_NAME], contextFiles: true });
    await cp(stateA, clean, { recursive: true });
    expect((await runCliInProcess(['sync'], { cwd: clean, env })).code).toBe(0);
    treeB = await storeTree(clean);
    // The new file is in place, whole, and the work folder holds nothing.
    expect((await readFile(path.join(clean, 'prompts/acme/prompt-0000.files/doc.bin'))).equals(fileOf(2))).toBe(true);
    expect(await workFiles(clean)).toEqual([]);
  }, 60_000);

  it.each([
    { at: 'the journal written, not synced', kill: { PROMPTLOCK_FAILPOINT: 'journal-written' }, committed: false },
    { at: 'the journal synced, not committed', kill: { PROMPTLOCK_FAILPOINT: 'journal-synced' }, committed: false },
    { at: 'the commit point', kill: { PROMPTLOCK_FAILPOINT_APPLY: '0' }, committed: true },
    { at: '1 applied operation', kill: { PROMPTLOCK_FAILPOINT_APPLY: '1' }, committed: true },
    { at: '3 applied operations', kill: { PROMPTLOCK_FAILPOINT_APPLY: '3' }, committed: true },
  ])(
    'SIGKILL after $at: check is green or names the journal, and the next sync completes with nothing left over',
    async ({ kill, committed }) => {
      const dir = await project({});
      await cp(stateA, dir, { recursive: true });
      const killed = await runBuiltCli(['sync'], { cwd: dir, env: { ...env, ...kill } });
      expect(killed.signal).toBe('SIGKILL');
      const left = await workFiles(dir);
      // The staged download is part of the transaction: named for it, beside its journal.
      expect(left.some((name) => /^tx-[^.]+\.journal$/.test(name))).toBe(committed);
      if (committed && kill.PROMPTLOCK_FAILPOINT_APPLY === '0')
        expect(left.some((name) => /^tx-[^.]+\.\d+\.staged$/.test(name))).toBe(true);
      if (!committed) expect(await storeTree(dir)).toEqual(treeA);
      // Never read through the journal: a committed one is a problem until a run applies it.
      const check = await runCliInProcess(['check', '--no-typecheck'], { cwd: dir, env: {} });
      expect(check.stderr).toContain(committed ? 'an interrupted sync left committed writes' : 'lockfile, snapshots and module agree');
      expect(check.code).toBe(committed ? 1 : 0);
      const next = await runCliInProcess(['sync'], { cwd: dir, env });
      expect(next.code).toBe(0);
      expect(await storeTree(dir)).toEqual(treeB);
      expect(await workFiles(dir)).toEqual([]);
    },
    60_000,
  );

  it('a journal naming a file outside its own staging as a move source is refused whole: nothing is moved', async () => {
    const dir = await project({});
    await cp(stateA, dir, { recursive: true });
    expect((await runBuiltCli(['sync'], { cwd: dir, env: { ...env, PROMPTLOCK_FAILPOINT_APPLY: '0' } })).signal).toBe('SIGKILL');
    const name = (await workFiles(dir)).find((n) => n.endsWith('.journal'))!;
    const journalFile = path.join(dir, '.promptlock', name);
    const bytes = await readFile(journalFile);
    // A hand-edited journal (its checksum recomputed) pointing a move at the config file.
    const edited = resealJournal(bytes, (header) =>
      header.replace(/"source":"[^"]+"/, `"source":${JSON.stringify(path.join(dir, 'prompts.config.json'))}`),
    );
    expect(edited.toString('utf8')).toContain('prompts.config.json');
    await writeFile(journalFile, edited);
    const refused = await runCliInProcess(['sync'], { cwd: dir, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Refusing to apply .promptlock/${name}, the journal of an interrupted sync: a move names`);
    expect(await readFile(path.join(dir, 'prompts.config.json'), 'utf8')).toContain(ACME_NAME);
    expect(await storeTree(dir)).toEqual(treeA);
    // Removed as the error says: the next sync completes.
    for (const name of await workFiles(dir)) await rm(path.join(dir, '.promptlock', name));
    expect((await runCliInProcess(['sync'], { cwd: dir, env })).code).toBe(0);
    expect(await readFile(path.join(dir, 'prompts.config.json'), 'utf8')).toContain(ACME_NAME);
    expect(await storeTree(dir)).toEqual(treeB);
    expect(await workFiles(dir)).toEqual([]);
  }, 60_000);
});
