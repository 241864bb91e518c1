/**
 * The journal's `move` op: a staged download (journal-file.ts) is renamed into place, read through
 * the journal by readers meanwhile, and only a staged file of the journal's own transaction is
 * ever moved.
 */
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { integrityOf } from '../../src/store/integrity.js';
import { commitChanges } from '../../src/store/journal.js';
import { recoverStore } from '../../src/store/recover-store.js';
import { Stager } from '../../src/store/staged-file.js';
import { openStoreView } from '../../src/store/store-view.js';
import { storeFilesIn, writeJournalFile } from '../helpers/journal.js';

let root: string;
let files: ReturnType<typeof storeFilesIn>;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'promptlock-move-'));
  files = storeFilesIn(root);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const work = () => path.join(root, '.promptlock');
const workFiles = async () => (await readdir(work()).catch(() => [] as string[])).filter((name) => name !== '.gitignore');

async function stage(stager: Stager, text: string) {
  const file = await stager.create();
  await file.write(Buffer.from('discarded by reset'));
  await file.reset();
  for (const part of text.match(/.{1,4}/gs) ?? []) await file.write(Buffer.from(part));
  return file.finish();
}

describe('staged files', () => {
  it('are hashed and counted as written (a reset starts afresh), then moved into place by the commit', async () => {
    const stager = new Stager(root);
    const staged = await stage(stager, 'the bytes of a context file');
    expect(staged).toMatchObject({ size: 27, integrity: integrityOf('the bytes of a context file') });
    const target = path.join(root, 'prompts/acme/p.files/doc.txt');
    const result = await commitChanges(files, [{ kind: 'write', path: target, content: staged }]);
    expect(result.written).toEqual([target]);
    expect(await readFile(target, 'utf8')).toBe('the bytes of a context file');
    await stager.discard();
    expect(await workFiles()).toEqual([]);
  });

  it('holding the bytes already on disk: the target is not touched, and the run discards the staged file', async () => {
    const target = path.join(root, 'prompts/acme/p.files/doc.txt');
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, 'same bytes');
    const before = (await stat(target)).mtimeMs;
    const stager = new Stager(root);
    const result = await commitChanges(files, [{ kind: 'write', path: target, content: await stage(stager, 'same bytes') }]);
    expect(result.written).toEqual([]);
    expect((await stat(target)).mtimeMs).toBe(before);
    expect((await workFiles()).filter((name) => name.endsWith('.part'))).toHaveLength(1);
    await stager.discard();
    expect(await workFiles()).toEqual([]);
  });

  it('a staged file can only replace a file, never a folder: refused before the commit', async () => {
    const target = path.join(root, 'prompts/acme/p.files/doc.txt');
    await mkdir(target, { recursive: true });
    const stager = new Stager(root);
    await expect(commitChanges(files, [{ kind: 'write', path: target, content: await stage(stager, 'x') }])).rejects.toThrow(
      'it is a folder, not a file',
    );
    await stager.discard();
    expect(await workFiles()).toEqual([]);
  });
});

describe('a committed journal with a move', () => {
  it('is read through by readers, then applied by the next run, leaving nothing behind', async () => {
    const target = path.join(root, 'prompts/acme/p.files/doc.txt');
    const source = path.join(work(), 'tx-1-1.0.staged');
    const move = { kind: 'move' as const, target: 'prompts/acme/p.files/doc.txt', source: 'tx-1-1.0.staged', size: 9 };
    await writeJournalFile(root, [move], [undefined]);
    await writeFile(source, 'new bytes');
    const view = await openStoreView(files);
    expect((await view.readFile(target))?.toString()).toBe('new bytes');
    expect(await recoverStore(files)).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('new bytes');
    expect(await workFiles()).toEqual([]);
    // Applied again (a run killed before removing the journal): the file has moved, the move is done.
    await writeJournalFile(root, [move], [undefined]);
    expect(await recoverStore(files)).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('new bytes');
  });

  it.each([
    ['a link to a file outside the project', async (source: string, outside: string) => symlink(outside, source)],
    ['a file of another size', async (source: string) => writeFile(source, 'not the staged bytes')],
  ])('a staged file replaced by %s is not moved: the move is skipped, and nothing lands', async (_what, plant) => {
    const outside = path.join(root, 'outside.txt');
    await writeFile(outside, 'secret bytes');
    const target = path.join(root, 'prompts/acme/p.files/doc.txt');
    const source = path.join(work(), 'tx-1-1.0.staged');
    await writeJournalFile(
      root,
      [{ kind: 'move', target: 'prompts/acme/p.files/doc.txt', source: 'tx-1-1.0.staged', size: 12 }],
      [undefined],
    );
    await plant(source, outside);
    expect(await recoverStore(files)).toBe(true);
    await expect(lstat(target)).rejects.toThrow('ENOENT');
    expect(await readFile(outside, 'utf8')).toBe('secret bytes');
    expect(await workFiles()).toEqual([]);
  });

  it.each([
    ['a file outside the work folder', (dir: string) => path.join(dir, 'secret.txt'), '../secret.txt'],
    ['a file outside the work folder, by its absolute path', (dir: string) => path.join(dir, 'secret.txt'), undefined],
    ['a staged file of another transaction', (dir: string) => path.join(dir, '.promptlock', 'tx-9-9.0.staged'), 'tx-9-9.0.staged'],
    ['a download still under way', (dir: string) => path.join(dir, '.promptlock', 'dl-1-abc.part'), 'dl-1-abc.part'],
  ])('never moves %s: the journal is refused whole', async (_what, sourceOf, named) => {
    const source = sourceOf(root);
    const target = path.join(root, 'prompts/acme/p.files/doc.txt');
    await writeJournalFile(root, [{ kind: 'move', target: 'prompts/acme/p.files/doc.txt', source: named ?? source, size: 6 }], [undefined]);
    await writeFile(source, 'secret');
    await expect(recoverStore(files)).rejects.toThrow('not a staged file of this journal');
    await expect(readFile(target)).rejects.toThrow('ENOENT');
    if (!source.startsWith(work())) expect(await readFile(source, 'utf8')).toBe('secret');
  });
});
