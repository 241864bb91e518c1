/**
 * Early copies (src/store/early-copies.ts): a transaction writes each new snapshot's bytes to a
 * staged file while it is still staging, and the apply renames that file into place. The copy is
 * never the data: when it is gone or cannot be moved, the journal's bytes are written instead, and
 * nothing of it is left behind.
 */
import { mkdtemp, readdir, readFile, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
const snapshot = (n: number) => path.join(root, 'prompts', 'acme', `p-${n}.json`);
const bytesOf = (n: number) => `{ "n": ${n} }\n`;

/** Stages `count` new snapshots and waits until each has its early copy in the work folder. */
async function stageNew(transaction: Transaction, count: number): Promise<Map<string, number>> {
  for (let n = 0; n < count; n++) await transaction.stage([{ kind: 'write', path: snapshot(n), content: bytesOf(n) }]);
  const inodes = new Map<string, number>();
  for (let attempt = 0; attempt < 200 && inodes.size < count; attempt++) {
    for (const name of (await workFiles()).filter((name) => name.endsWith('.staged'))) {
      const text = await readFile(path.join(work(), name), 'utf8').catch(() => '');
      if (text.endsWith('\n')) inodes.set(text, (await stat(path.join(work(), name))).ino);
    }
    if (inodes.size < count) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return inodes;
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
    await stageNew(transaction, 2);
    for (const name of (await workFiles()).filter((name) => name.endsWith('.staged'))) await unlink(path.join(work(), name));
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
    expect((await workFiles()).filter((name) => name.endsWith('.staged'))).toEqual([]);
    await second.commit();
    expect(await readFile(snapshot(0), 'utf8')).toBe(bytesOf(9));
  });
});
