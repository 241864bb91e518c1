/**
 * Early copies (src/store/early-copies.ts): a transaction writes each new snapshot's bytes to a
 * staged file while it is still staging, and the apply renames that file into place. The copy is
 * never the data: when it is gone or cannot be moved, the journal's bytes are written instead, and
 * nothing of it is left behind.
 */
import { statSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renamesInto } from '../../src/store/early-copies.js';
import { Transaction } from '../../src/store/journal.js';
import { storeFilesIn } from '../helpers/journal.js';

let root: string;
let files: ReturnType<typeof storeFilesIn>;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'promptlock-early-'));
  files = storeFilesIn(root);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const work = () => path.join(root, '.promptlock');
const workFiles = async () => (await readdir(work()).catch(() => [] as string[])).filter((name) => name !== '.gitignore');
/** The copies (staged files) in the work folder, by name. */
const copyNames = async () => (await workFiles()).filter((name) => name.endsWith('.staged'));
const snapshot = (n: number) => path.join(root, 'prompts', 'acme', `p-${n}.json`);
const bytesOf = (n: number) => `{ "n": ${n} }\n`;

/**
 * Waits until the work folder holds a finished copy of each of `texts`; resolves to each copy's
 * inode by its text, and to the texts of every copy there.
 */
async function copiesOf(texts: readonly string[]): Promise<{ inodes: Map<string, number>; all: string[] }> {
  for (let attempt = 0; ; attempt++) {
    const inodes = new Map<string, number>();
    const all: string[] = [];
    for (const name of await copyNames()) {
      const file = path.join(work(), name);
      const text = await readFile(file, 'utf8').catch(() => '');
      all.push(text);
      if (texts.includes(text)) inodes.set(text, (await stat(file)).ino);
    }
    if (inodes.size === texts.length || attempt === 200) return { inodes, all };
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Stages `count` new snapshots and waits until each has its early copy in the work folder. */
async function stageNew(transaction: Transaction, count: number): Promise<Map<string, number>> {
  for (let n = 0; n < count; n++) await transaction.stage([{ kind: 'write', path: snapshot(n), content: bytesOf(n) }]);
  return (await copiesOf(Array.from({ length: count }, (_, n) => bytesOf(n)))).inodes;
}

/** Stages snapshot 0, replaces its finished copy with what `plant` puts under its name, and commits. */
async function commitWithCopyReplaced(plant: (copy: string) => Promise<void>): Promise<void> {
  const transaction = new Transaction(files);
  expect((await stageNew(transaction, 1)).size).toBe(1);
  const [copy] = await copyNames();
  await unlink(path.join(work(), copy!));
  await plant(path.join(work(), copy!));
  await transaction.commit();
}

describe('early copies of new files', () => {
  it('are written while staging and moved into place by the commit: the snapshot is the copy, not a second write', async () => {
    const transaction = new Transaction(files);
    const copies = await stageNew(transaction, 3);
    expect(copies.size).toBe(3);
    await expect(readdir(path.join(root, 'prompts'))).rejects.toMatchObject({ code: 'ENOENT' }); // nothing before the commit point
    const result = await transaction.commit();
    expect(result.written).toEqual([0, 1, 2].map(snapshot));
    for (let n = 0; n < 3; n++) {
      expect(await readFile(snapshot(n), 'utf8')).toBe(bytesOf(n));
      expect((await stat(snapshot(n))).ino).toBe(copies.get(bytesOf(n)));
    }
    expect(await workFiles()).toEqual([]);
  });

  it('a copy gone before the commit: the journal bytes are written instead', async () => {
    const transaction = new Transaction(files);
    expect((await stageNew(transaction, 2)).size).toBe(2);
    for (const name of await copyNames()) await unlink(path.join(work(), name));
    await transaction.commit();
    expect(await readFile(snapshot(0), 'utf8')).toBe(bytesOf(0));
    expect(await readFile(snapshot(1), 'utf8')).toBe(bytesOf(1));
    expect(await workFiles()).toEqual([]);
  });

  it('an aborted transaction leaves neither its copies nor any target', async () => {
    const transaction = new Transaction(files);
    expect((await stageNew(transaction, 4)).size).toBe(4);
    await transaction.abort();
    expect(await workFiles()).toEqual([]);
    await expect(readdir(path.join(root, 'prompts'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a file that already exists gets no copy: it is replaced from the journal, as before', async () => {
    const first = new Transaction(files);
    await first.commit([{ kind: 'write', path: snapshot(0), content: bytesOf(0) }]);
    const second = new Transaction(files);
    await second.stage([{ kind: 'write', path: snapshot(0), content: bytesOf(9) }]);
    // Copies are written in staging order: once a new file's copy is there, one of the existing file would be too.
    await second.stage([{ kind: 'write', path: snapshot(1), content: bytesOf(1) }]);
    expect((await copiesOf([bytesOf(1)])).all).toEqual([bytesOf(1)]);
    await second.commit();
    expect(await readFile(snapshot(0), 'utf8')).toBe(bytesOf(9));
    expect(await readFile(snapshot(1), 'utf8')).toBe(bytesOf(1));
    expect(await workFiles()).toEqual([]);
  });

  it('a copy whose write is skipped (a folder appeared where the file goes) is removed with the journal', async () => {
    const transaction = new Transaction(files);
    expect((await stageNew(transaction, 2)).size).toBe(2);
    await mkdir(snapshot(1), { recursive: true });
    await expect(transaction.commit()).rejects.toThrow('Could not apply 1 of the committed writes');
    expect(await readFile(snapshot(0), 'utf8')).toBe(bytesOf(0));
    expect(await workFiles()).toEqual([]);
  });

  it('a copy swapped for a link while the run fetched: the journal bytes are written, the link never lands', async () => {
    const outside = path.join(root, 'outside.txt');
    await writeFile(outside, `${'X'.repeat(bytesOf(0).length - 1)}\n`); // the copy's size, so only the kind tells
    await commitWithCopyReplaced((copy) => symlink(outside, copy));
    expect((await lstat(snapshot(0))).isFile()).toBe(true);
    expect(await readFile(snapshot(0), 'utf8')).toBe(bytesOf(0));
    expect(await readFile(outside, 'utf8')).toBe(`${'X'.repeat(bytesOf(0).length - 1)}\n`);
    expect(await workFiles()).toEqual([]);
  });

  it('a copy replaced by another file of the same size: the journal bytes are written, not the forged ones', async () => {
    await commitWithCopyReplaced((copy) => writeFile(copy, bytesOf(0).replace('0', '7')));
    expect(await readFile(snapshot(0), 'utf8')).toBe(bytesOf(0));
    expect(await workFiles()).toEqual([]);
  });

  it("a file already under a copy's name is someone else's: left as it is, and the journal bytes are written", async () => {
    const transaction = new Transaction(files);
    expect((await stageNew(transaction, 1)).size).toBe(1);
    const [first] = await copyNames();
    const taken = path.join(work(), first!.replace(/\.0\.staged$/, '.1.staged')); // the next copy's name
    await writeFile(taken, 'not a copy');
    await transaction.stage([{ kind: 'write', path: snapshot(1), content: bytesOf(1) }]);
    await transaction.commit();
    expect(await readFile(snapshot(1), 'utf8')).toBe(bytesOf(1));
    expect(await readFile(taken, 'utf8')).toBe('not a copy');
  });

  it('new files beyond what the copies hold at once (1 MiB): every file lands, from its copy or the journal, and nothing is left', async () => {
    const big = (n: number) => `${JSON.stringify({ n, text: 'x'.repeat(100 * 1024) })}\n`;
    const transaction = new Transaction(files);
    await transaction.stage(Array.from({ length: 24 }, (_, n) => ({ kind: 'write' as const, path: snapshot(n), content: big(n) })));
    await transaction.commit();
    for (let n = 0; n < 24; n++) expect(await readFile(snapshot(n), 'utf8')).toBe(big(n));
    expect(await workFiles()).toEqual([]);
  });
});

// A second file system to put a snapshots folder on: Linux's /dev/shm is a tmpfs.
const otherDevice = (() => {
  try {
    return statSync('/dev/shm').dev !== statSync(tmpdir()).dev ? '/dev/shm' : undefined;
  } catch {
    return undefined;
  }
})();

describe('where copies are made', () => {
  it("on the work folder's file system, by the snapshots folder or the nearest folder above it that exists", async () => {
    await mkdir(work(), { recursive: true });
    expect(await renamesInto(work(), path.join(root, 'prompts', 'not', 'yet'))).toBe(true);
  });

  it.runIf(otherDevice)(
    'not when the snapshots folder is on another file system (a mount inside the project): each rename would fail',
    async () => {
      const elsewhere = await mkdtemp(path.join(otherDevice!, 'promptlock-early-'));
      try {
        await mkdir(work(), { recursive: true });
        expect(await renamesInto(work(), path.join(elsewhere, 'prompts'))).toBe(false);
      } finally {
        await rm(elsewhere, { recursive: true, force: true });
      }
    },
  );
});
