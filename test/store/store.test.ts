import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockfileError, PromptlockError } from '../../src/errors.js';
import { commitChanges, openStoreView, recoverStore } from '../../src/store/commit-changes.js';
import { decodeLockfile, encodeLockfile } from '../../src/store/lockfile-format.js';
import { acquireRunLock } from '../../src/store/run-lock.js';
import { decodeSnapshot, encodeSnapshot, snapshotIntegrity } from '../../src/store/snapshot-format.js';
import type { Prompt } from '../../src/types.js';

const prompt = (content: string): Prompt => ({
  id: 'pmt_1',
  title: 'T',
  content,
  systemPrompt: null,
  tags: ['b', 'a'],
  version: 'v2',
  workspaceSlug: 'acme',
  packageName: '@acme/x:v2',
  context: [],
  metadata: { createdAt: 1, generatedAt: 99 },
  extraField: { z: 1, a: 2 },
});

describe('snapshot format', () => {
  it.each([
    ['plain', 'one line'],
    ['multi-line', 'a\nb\n\nc\n'],
    ['CRLF kept', 'a\r\nb'],
    ['nasty', '`${x}` */ "q" \\ \u2028 \u0000 😀 \ud800 {{v:int // d}}'],
  ])('round-trips %s text exactly', (_name, content) => {
    const decoded = decodeSnapshot(encodeSnapshot(prompt(content)), 'x.json');
    expect(decoded.content).toBe(content);
    expect(decoded.metadata).toEqual({ createdAt: 1 });
  });

  it('a one-line edit of a prompt is a one-line change of the file', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}`);
    const before = encodeSnapshot(prompt(lines.join('\n'))).split('\n');
    lines[17] = 'line 17, edited';
    const after = encodeSnapshot(prompt(lines.join('\n'))).split('\n');
    expect(after.length).toBe(before.length);
    expect(after.filter((line, i) => line !== before[i])).toEqual(['    "line 17, edited",']);
  });

  it('drops metadata.generatedAt, so integrity ignores it, and keeps extra fields in sorted order', () => {
    const a = prompt('x');
    const b = { ...prompt('x'), metadata: { createdAt: 1, generatedAt: 12345 } };
    expect(snapshotIntegrity(a)).toBe(snapshotIntegrity(b));
    expect(encodeSnapshot(a)).toContain('"extraField": {\n    "a": 2,\n    "z": 1\n  }');
    expect(Object.keys(JSON.parse(encodeSnapshot(a)))).toEqual([
      'id', 'title', 'tags', 'version', 'workspaceSlug', 'packageName', 'systemPrompt', 'content', 'context', 'metadata', 'extraField',
    ]);
  });

  it.each([
    ['not JSON', '{', 'Snapshot x.json is not valid JSON'],
    ['not an object', '[]', 'Snapshot x.json is not a JSON object.'],
    ['missing field', '{"id":"a","title":"t","content":"c","version":"v1"}', 'Snapshot x.json: field "packageName" is missing or not a string.'],
  ])('names the file when it is %s', (_name, text, message) => {
    expect(() => decodeSnapshot(text, 'x.json')).toThrow(LockfileError);
    expect(() => decodeSnapshot(text, 'x.json')).toThrow(message);
  });
});

describe('lockfile format', () => {
  it('sorts entries and keys, whatever order they came in', () => {
    const entry = { integrity: 'sha256-AA==', id: 'i', version: 'v1', selector: null, variables: [{ type: 'string' as const, name: 'a' }] };
    const text = encodeLockfile({ lockfileVersion: 1, prompts: { '@b/x': entry, '@a/x': entry } });
    expect(Object.keys(JSON.parse(text).prompts)).toEqual(['@a/x', '@b/x']);
    expect(text).toContain('"selector": null,\n      "version": "v1",\n      "id": "i",\n      "integrity"');
    expect(decodeLockfile(text, 'l.json')).toEqual(JSON.parse(text));
  });

  it.each([
    ['a merge conflict', '<<<<<<< HEAD\n{}', 'Lockfile l.json is not valid JSON'],
    ['a bad integrity', '{"lockfileVersion":1,"prompts":{"@a/x":{"selector":null,"version":"v1","id":"i","integrity":"md5-x","variables":[]}}}', 'Lockfile l.json is invalid at "prompts.@a/x.integrity"'],
    ['a future version', '{"lockfileVersion":2,"prompts":{}}', 'Lockfile l.json is invalid at "lockfileVersion"'],
  ])('says where it is invalid: %s', (_name, text, message) => {
    expect(() => decodeLockfile(text, 'l.json')).toThrow(message);
  });
});

describe('journaled commits', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'promptlock-store-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('writes and deletes together, and skips files whose content is unchanged', async () => {
    const a = path.join(root, 'p/a.json');
    const b = path.join(root, 'p/b.json');
    await commitChanges(root, [
      { kind: 'write', path: a, content: 'A' },
      { kind: 'write', path: b, content: 'B' },
    ]);
    const mtime = (await stat(a)).mtimeMs;
    const result = await commitChanges(root, [
      { kind: 'write', path: a, content: 'A' },
      { kind: 'delete', path: b, pruneUpTo: root },
      { kind: 'delete', path: path.join(root, 'never-existed') },
    ]);
    expect(result).toEqual({ written: [], deleted: [b] });
    expect((await stat(a)).mtimeMs).toBe(mtime);
    await expect(stat(b)).rejects.toThrow();
  });

  it('a committed journal left by a killed run is visible to readers and rolled forward by recovery', async () => {
    const target = path.join(root, 'lock.json');
    await writeFile(target, 'old');
    // What a run killed right after its commit point leaves behind.
    const tx = path.join(root, '.promptlock/tx-1-1');
    await mkdir(tx, { recursive: true });
    await writeFile(path.join(tx, '0.staged'), 'new');
    await writeFile(path.join(tx, 'journal.json'), JSON.stringify({ ops: [{ kind: 'write', target, staged: '0.staged' }] }));
    expect((await (await openStoreView(root)).readFile(target))?.toString()).toBe('new');
    expect(await readFile(target, 'utf8')).toBe('old'); // the view writes nothing
    expect(await recoverStore(root)).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('new');
    expect(await recoverStore(root)).toBe(false);
  });

  it('an uncommitted journal (no journal.json) is discarded: the old files stand', async () => {
    const target = path.join(root, 'lock.json');
    await writeFile(target, 'old');
    const tx = path.join(root, '.promptlock/tx-1-1');
    await mkdir(tx, { recursive: true });
    await writeFile(path.join(tx, '0.staged'), 'half');
    expect((await (await openStoreView(root)).readFile(target))?.toString()).toBe('old');
    await recoverStore(root);
    expect(await readFile(target, 'utf8')).toBe('old');
  });
});

describe('run lock', () => {
  it('refuses a second holder, names the first, and frees on release', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'promptlock-lock-'));
    const lock = await acquireRunLock(root, 'sync');
    await expect(acquireRunLock(root, 'sync')).rejects.toThrow(PromptlockError);
    await expect(acquireRunLock(root, 'sync')).rejects.toThrow(`Another promptlock sync is running in this project (pid ${process.pid}`);
    await lock.release();
    await (await acquireRunLock(root, 'sync')).release();
    await rm(root, { recursive: true, force: true });
  });

  it('takes over a lock whose process is gone', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'promptlock-lock-'));
    await mkdir(path.join(root, '.promptlock'));
    const { hostname } = await import('node:os');
    await writeFile(path.join(root, '.promptlock/run.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), command: 'sync', startedAt: 'x' }));
    await (await acquireRunLock(root, 'sync')).release();
    await rm(root, { recursive: true, force: true });
  });
});

describe('lockfile file paths', () => {
  const withPath = (p: string) =>
    JSON.stringify({
      lockfileVersion: 1,
      prompts: { '@a/x': { selector: null, version: 'v1', id: 'i', integrity: 'sha256-AA==', variables: [], files: { c1: { path: p, size: 1, integrity: 'sha256-AA==' } } } },
    });
  it.each(['../../src/index.ts', 'a/x.files/../../../etc/passwd', 'a/y.files/f.txt', 'a/x.files/sub/f.txt', 'a/x.files/.hidden', '/etc/passwd'])(
    'refuses %s: a locked file must stay in its own package folder',
    (p) => {
      expect(() => decodeLockfile(withPath(p), 'l.json')).toThrow('must be a file name inside "a/x.files/"');
    },
  );
  it('accepts a plain file name in the package folder', () => {
    expect(decodeLockfile(withPath('a/x.files/faq-v2.pdf'), 'l.json').prompts['@a/x']!.files!.c1!.path).toBe('a/x.files/faq-v2.pdf');
  });
});
