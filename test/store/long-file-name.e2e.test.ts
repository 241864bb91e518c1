/**
 * Issue 19, item 7: a context file whose `fileName` is longer than any file system allows is
 * stored under a shortened name (its start, a hash, its extension) decided before the commit
 * point; and a lockfile that records a path that cannot exist (left by an earlier version) reads
 * as a missing file: `check` says so, and `sync --refetch` or a sync without that prompt recover.
 * The built CLI against a scripted loopback service.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { boundedFileName } from '../../src/store/snapshot-format.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { ACME_NAME, acmePrompt, hostileService, json } from '../helpers/hostile-network.js';

const { project } = disposables();
const env = { PROMPTLOCK_API_KEY: `sk_live_${'LongNames'.padEnd(38, 'q')}wxyz` };
const LONG = `${'a'.repeat(300)}.pdf`;
const BYTES = Buffer.from('the context file\n');

const service = hostileService((req, res, self) => {
  if (req.url === '/v1/prompts/get') {
    const item = { id: 'ctx_long', type: 'file' as const, label: 'long', fileName: LONG, fileSize: BYTES.length, createdAt: 1 };
    json(res, 200, acmePrompt({ context: [item] }));
  } else if (req.url!.startsWith('/v1/prompts?') || req.url === '/v1/prompts') {
    json(res, 200, { prompts: [], hasMore: false });
  } else if (req.url!.startsWith('/api/v1/prompts/context/download-url')) {
    json(res, 200, { url: `${self}/bucket/long?sig=s`, expiresIn: 300 });
  } else if (req.url!.startsWith('/bucket/')) {
    res.writeHead(200, { 'content-length': String(BYTES.length) });
    res.end(BYTES);
  } else {
    json(res, 404, { error: { code: 'not_found', message: 'no' } });
  }
});

let url: string;
beforeAll(async () => {
  url = (await service()).url;
});

const lockfileOf = async (dir: string) => JSON.parse(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8'));

describe('boundedFileName', () => {
  it.each([
    ['a short name is kept', 'doc.pdf', 'doc.pdf'],
    ['exactly 100 characters is kept', `${'b'.repeat(96)}.txt`, `${'b'.repeat(96)}.txt`],
  ])('%s', (_name, given, want) => {
    expect(boundedFileName(given)).toBe(want);
  });

  it('a long name keeps its start and extension, and two names differing only at the end stay apart', () => {
    const one = boundedFileName(`${'x'.repeat(300)}-1.pdf`);
    const two = boundedFileName(`${'x'.repeat(300)}-2.pdf`);
    expect(one).toMatch(/^x+-[0-9a-f]{10}\.pdf$/);
    expect(one.length).toBe(100);
    expect(one).not.toBe(two);
    expect(boundedFileName(`${'x'.repeat(300)}-1.pdf`)).toBe(one);
  });
});

describe('a 300-character context file name', () => {
  it('is stored under a shortened name; sync and check pass', async () => {
    const dir = await project({ baseUrl: url, prompts: [ACME_NAME], contextFiles: true });
    const sync = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(sync.code, sync.stderr).toBe(0);
    const locked = (await lockfileOf(dir)).prompts[ACME_NAME].files.ctx_long.path as string;
    expect(locked).toBe(`acme/prompt-0000.files/${boundedFileName(LONG)}`);
    expect(await readFile(path.join(dir, 'prompts', locked))).toEqual(BYTES);
    const check = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(check.code, check.stderr).toBe(0);
  });

  it('a lockfile recording a path that cannot exist never wedges the project: check reports it missing, sync --refetch and a sync without the prompt recover', async () => {
    const dir = await project({ baseUrl: url, prompts: [ACME_NAME], contextFiles: true });
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
    // What an earlier version recorded (and failed to write).
    const lockfile = await lockfileOf(dir);
    const wedged = `acme/prompt-0000.files/${LONG}`;
    lockfile.prompts[ACME_NAME].files.ctx_long.path = wedged;
    await writeFile(path.join(dir, 'prompts.lock.json'), `${JSON.stringify(lockfile, null, 2)}\n`);

    const check = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('is missing');
    expect(check.stderr).not.toContain('ENAMETOOLONG');

    const refetch = await runBuiltCli(['sync', '--refetch'], { cwd: dir, env });
    expect(refetch.code, refetch.stderr).toBe(0);
    expect((await lockfileOf(dir)).prompts[ACME_NAME].files.ctx_long.path).toBe(`acme/prompt-0000.files/${boundedFileName(LONG)}`);
    expect((await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} })).code).toBe(0);

    // Wedged again, then the prompt is removed from the config: the sync prunes it.
    await writeFile(path.join(dir, 'prompts.lock.json'), `${JSON.stringify(lockfile, null, 2)}\n`);
    await writeFile(path.join(dir, 'prompts.config.json'), JSON.stringify({ baseUrl: url, prompts: [], contextFiles: true }));
    const pruned = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(Object.keys((await lockfileOf(dir)).prompts)).toEqual([]);
    await expect(stat(path.join(dir, 'prompts/acme/prompt-0000.json'))).rejects.toThrow();
  });
});
