import { link, lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockfileError, PromptlockError } from '../../src/errors.js';
import { commitChanges, Transaction } from '../../src/store/journal.js';
import { decodeLockfile, encodeLockfile } from '../../src/store/lockfile-format.js';
import { recoverStore } from '../../src/store/recover-store.js';
import { acquireRunLock } from '../../src/store/run-lock.js';
import { decodeSnapshot, encodeSnapshot, snapshotIntegrity } from '../../src/store/snapshot-format.js';
import { openStoreView } from '../../src/store/store-view.js';
import type { Prompt } from '../../src/types.js';
import { storeFilesIn, writeJournalFile } from '../helpers/journal.js';

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
      'id',
      'title',
      'tags',
      'version',
      'workspaceSlug',
      'packageName',
      'systemPrompt',
      'content',
      'context',
      'metadata',
      'extraField',
    ]);
  });

  it.each([
    ['not JSON', '{', 'Snapshot x.json is not valid JSON at line 1, column 2: close brace expected.'],
    [
      'JSON with a trailing comma',
      '{\n  "id": "a",\n}\n',
      'Snapshot x.json is not valid JSON at line 3, column 1: property name expected.',
    ],
    ['not an object', '[]', 'Snapshot x.json is not a JSON object.'],
    [
      'missing field',
      '{"id":"a","title":"t","content":"c","tags":[],"version":"v1","workspaceSlug":"w","context":[],"metadata":{"createdAt":1}}',
      'Snapshot x.json: field "packageName" is missing.',
    ],
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

  it('records how a prompt was read only when not by the grammar alone, before its variables', () => {
    const entry = { integrity: 'sha256-AA==', id: 'i', version: 'v1', selector: null, variables: [] };
    const text = encodeLockfile({
      lockfileVersion: 1,
      prompts: { '@a/x': entry, '@a/y': { ...entry, placeholders: 'sdk' }, '@a/z': { ...entry, placeholders: { text: ['end'] } } },
    });
    expect(text).toContain(
      '"@a/x": {\n      "selector": null,\n      "version": "v1",\n      "id": "i",\n      "integrity": "sha256-AA==",\n      "variables"',
    );
    expect(text).toContain('"integrity": "sha256-AA==",\n      "placeholders": "sdk",\n      "variables"');
    expect(decodeLockfile(text, 'l.json').prompts['@a/z']!.placeholders).toEqual({ text: ['end'] });
  });

  it.each([
    ['a merge conflict', '<<<<<<< HEAD\n{}', 'Lockfile l.json is not valid JSON at line 1, column 1: invalid symbol.'],
    [
      'a missing comma',
      '{\n  "lockfileVersion": 1\n  "prompts": {}\n}',
      'Lockfile l.json is not valid JSON at line 3, column 3: comma expected.',
    ],
    [
      'a bad integrity',
      '{"lockfileVersion":1,"prompts":{"@a/x":{"selector":null,"version":"v1","id":"i","integrity":"md5-x","variables":[]}}}',
      'Lockfile l.json is invalid at "prompts.@a/x.integrity"',
    ],
    ['a future version', '{"lockfileVersion":2,"prompts":{}}', 'Lockfile l.json is invalid at "lockfileVersion"'],
    ['no prompts', '{"lockfileVersion":1}', 'Lockfile l.json is invalid at "prompts": is missing'],
    ['a key that is no package name', '{"lockfileVersion":1,"prompts":{"x":{}}}', 'invalid at "prompts.x": must be a package name'],
    ['an entry that is no object', '{"lockfileVersion":1,"prompts":{"@a/x":[]}}', 'invalid at "prompts.@a/x": must be an object'],
    [
      'a missing id',
      '{"lockfileVersion":1,"prompts":{"@a/x":{"selector":null,"version":"v1","integrity":"sha256-AA==","variables":[]}}}',
      'invalid at "prompts.@a/x.id": is missing',
    ],
    [
      'a variable of no known type',
      '{"lockfileVersion":1,"prompts":{"@a/x":{"selector":null,"version":"v1","id":"i","integrity":"sha256-AA==","variables":[{"name":"a","type":"date"}]}}}',
      'invalid at "prompts.@a/x.variables.0.type": must be one of',
    ],
    [
      'a reading that is none',
      '{"lockfileVersion":1,"prompts":{"@a/x":{"selector":null,"version":"v1","id":"i","integrity":"sha256-AA==","placeholders":{"text":["{{x}}"]},"variables":[]}}}',
      'invalid at "prompts.@a/x.placeholders": must be "sdk" or { "text": [placeholder names] }',
    ],
    [
      'a context file outside its folder',
      '{"lockfileVersion":1,"prompts":{"@a/x":{"selector":null,"version":"v1","id":"i","integrity":"sha256-AA==","variables":[],"files":{"c1":{"path":"../../etc/passwd","size":1,"integrity":"sha256-AA=="}}}}}',
      'invalid at "prompts.@a/x.files.c1.path": "../../etc/passwd" must be a file name inside "a/x.files/"',
    ],
    [
      'a context file keyed "__proto__"',
      '{"lockfileVersion":1,"prompts":{"@a/x":{"selector":null,"version":"v1","id":"i","integrity":"sha256-AA==","variables":[],"files":{"__proto__":{"path":"a/x.files/f","size":1,"integrity":"sha256-AA=="}}}}}',
      'invalid at "prompts.@a/x.files.__proto__": "__proto__" must be a context item id',
    ],
  ])('says where it is invalid: %s', (_name, text, message) => {
    expect(() => decodeLockfile(text, 'l.json')).toThrow(message);
  });
});

describe('journaled commits', () => {
  let root: string;
  /** promptlock's own files in `root`: a commit may name nothing else. */
  let files: ReturnType<typeof storeFilesIn>;
  /** A file of the snapshots folder. */
  const inStore = (relative: string) => path.join(root, 'prompts', relative);
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'promptlock-store-'));
    files = storeFilesIn(root, 'module.ts');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('writes and deletes together, and skips files whose content is unchanged', async () => {
    const a = inStore('p/a.json');
    const b = inStore('p/b.json');
    await commitChanges(files, [
      { kind: 'write', path: a, content: 'A' },
      { kind: 'write', path: b, content: 'B' },
    ]);
    const mtime = (await stat(a)).mtimeMs;
    const result = await commitChanges(files, [
      { kind: 'write', path: a, content: 'A' },
      { kind: 'delete', path: b, pruneUpTo: files.snapshotsDir },
      { kind: 'delete', path: inStore('p/never-existed.json') },
    ]);
    expect(result).toEqual({ written: [], deleted: [b] });
    expect((await stat(a)).mtimeMs).toBe(mtime);
    await expect(stat(b)).rejects.toThrow();
  });

  it('a large text with multi-byte characters is written exactly, an unchanged one is not rewritten, a change of the same size is', async () => {
    const target = path.join(root, 'module.ts');
    const text = `${'a'.repeat((1 << 20) - 1)}\u{1F600}${'é'.repeat(1 << 20)}end`;
    expect(await commitChanges(files, [{ kind: 'write', path: target, content: text }])).toEqual({ written: [target], deleted: [] });
    expect(await readFile(target, 'utf8')).toBe(text);
    expect(await commitChanges(files, [{ kind: 'write', path: target, content: text }])).toEqual({ written: [], deleted: [] });
    const changed = `${text.slice(0, -3)}END`; // same size, different end
    expect(await commitChanges(files, [{ kind: 'write', path: target, content: changed }])).toEqual({ written: [target], deleted: [] });
    expect(await readFile(target, 'utf8')).toBe(changed);
  });

  it('a stage that fails leaves nothing running behind it: after abort no pending journal appears, even from a slow compare', async () => {
    // A folder where the module goes (refused at staging) beside a large lockfile that takes a
    // while to compare (same size, other bytes): the refusal comes first.
    await mkdir(path.join(root, 'module.ts'));
    await writeFile(files.lockfilePath, 'b'.repeat(16 << 20));
    const transaction = new Transaction(files);
    await expect(
      transaction.stage([
        { kind: 'write', path: files.lockfilePath, content: 'a'.repeat(16 << 20) },
        { kind: 'write', path: path.join(root, 'module.ts'), content: 'x' },
      ]),
    ).rejects.toThrow(/module\.ts/);
    await transaction.abort();
    // Long enough for a compare left running to finish and open a journal (it did, before).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await readdir(path.join(root, '.promptlock')).catch(() => [])).filter((name) => name.startsWith('tx-'))).toEqual([]);
  });

  it('applies the deletes of a transaction before its writes, whenever they were staged (a file renamed on a case-insensitive disk keeps its new bytes)', async () => {
    // On a case-insensitive disk `Logo.png` and `logo.png` are one file; here the same path stands for both.
    const file = inStore('acme/p.files/logo.png');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, 'old logo');
    const transaction = new Transaction(files);
    await transaction.stage([{ kind: 'write', path: file, content: 'new logo' }]); // as the prompt arrives
    await transaction.stage([{ kind: 'delete', path: file, pruneUpTo: files.snapshotsDir }]); // the dropped file, after the last prompt
    expect(await transaction.commit()).toEqual({ written: [file], deleted: [file] });
    expect(await readFile(file, 'utf8')).toBe('new logo');
  });

  it('a committed journal left by a killed run is visible to readers and rolled forward by recovery', async () => {
    const target = files.lockfilePath;
    const gone = inStore('p/gone.json');
    await writeFile(target, 'old');
    await mkdir(path.dirname(gone), { recursive: true });
    await writeFile(gone, 'gone');
    await writeJournalFile(
      root,
      [
        { kind: 'write', target: 'prompts.lock.json' },
        { kind: 'delete', target: 'prompts/p/gone.json', prune: true },
        { kind: 'write', target: 'prompts/q/new.json' },
      ],
      ['new', undefined, 'N'],
    );
    const view = await openStoreView(files);
    expect((await view.readFile(target))?.toString()).toBe('new');
    expect(await view.readFile(gone)).toBeUndefined();
    expect((await view.readFile(inStore('q/new.json')))?.toString()).toBe('N');
    expect(await readFile(target, 'utf8')).toBe('old'); // the view writes nothing
    expect(await recoverStore(files)).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('new');
    expect(await readFile(inStore('q/new.json'), 'utf8')).toBe('N');
    await expect(stat(gone)).rejects.toThrow();
    await expect(stat(path.dirname(gone))).rejects.toThrow(); // pruned, up to the snapshots folder
    expect(await readdir(path.join(root, '.promptlock'))).toEqual([]);
    expect(await recoverStore(files)).toBe(false);
  });

  it('replaying a committed journal twice (killed during its first replay) gives the same files', async () => {
    const a = inStore('w/a.json');
    const b = inStore('w/b.json');
    await mkdir(path.dirname(a), { recursive: true });
    await writeFile(a, 'old a');
    await writeFile(b, 'old b');
    const journal = await writeJournalFile(
      root,
      [
        { kind: 'write', target: 'prompts/w/a.json' },
        { kind: 'write', target: 'prompts/w/b.json' },
      ],
      ['new a', 'new b'],
    );
    // The same file kept aside (its identity with it: a journal is replayed only as the file its run made).
    const kept = path.join(root, 'kept.journal');
    await link(journal, kept);
    // The first replay got as far as a's temporary file and b, then died.
    await writeFile(`${a}.promptlock-tmp`, 'new');
    await writeFile(b, 'new b');
    expect(await recoverStore(files)).toBe(true);
    await rename(kept, journal); // as if the removal of the journal was lost
    expect(await recoverStore(files)).toBe(true);
    expect([await readFile(a, 'utf8'), await readFile(b, 'utf8')]).toEqual(['new a', 'new b']);
    expect((await readdir(path.dirname(a))).sort()).toEqual(['a.json', 'b.json']);
  });

  it('an uncommitted journal (still .pending) is discarded: the old files stand', async () => {
    const target = files.lockfilePath;
    await writeFile(target, 'old');
    await writeJournalFile(root, [{ kind: 'write', target: 'prompts.lock.json' }], ['new'], { suffix: '.pending' });
    expect((await (await openStoreView(files)).readFile(target))?.toString()).toBe('old');
    expect(await recoverStore(files)).toBe(false);
    expect(await readFile(target, 'utf8')).toBe('old');
    expect(await readdir(path.join(root, '.promptlock'))).toEqual([]);
  });

  it.each([1, 10, 21, 40, -71, -1])(
    'a torn journal (cut to %i bytes) is not committed: ignored by readers, discarded by recovery, the old files stand',
    async (cut) => {
      const target = files.lockfilePath;
      await writeFile(target, 'old');
      const journal = await writeJournalFile(root, [{ kind: 'write', target: 'prompts.lock.json' }], ['new content']);
      const bytes = await readFile(journal);
      await writeFile(journal, bytes.subarray(0, cut < 0 ? bytes.byteLength + cut : cut));
      expect((await (await openStoreView(files)).readFile(target))?.toString()).toBe('old');
      expect(await recoverStore(files)).toBe(false);
      expect(await readFile(target, 'utf8')).toBe('old');
      expect(await readdir(path.join(root, '.promptlock'))).toEqual([]);
    },
  );

  it.each([
    [
      'a byte of content flipped',
      (b: Buffer) => Buffer.concat([b.subarray(0, 60), Buffer.from('X'), b.subarray(61)]),
      'its checksum does not match its content',
    ],
    ['bytes added', (b: Buffer) => Buffer.concat([b, Buffer.from('more')]), 'where its header announces'],
    [
      'a header that is not JSON',
      (b: Buffer) => {
        const at = Number(b.toString('latin1', 21, 37));
        return Buffer.concat([b.subarray(0, at), Buffer.from('{oops\n'), b.subarray(b.indexOf(0x0a, at) + 1)]);
      },
      'its header is not valid JSON',
    ],
    ['not a journal', () => Buffer.from('something else entirely\n'), 'it does not start like a promptlock journal'],
    // Version 1 journals (header first) are no longer read: a committed one is refused, never replayed.
    [
      'the previous format',
      () => Buffer.from('promptlock-journal 1\n{"ops":[]}\n\nend 0\n'),
      'it does not start like a promptlock journal',
    ],
  ])('a committed journal with %s is refused clearly, never applied', async (_name, damage, why) => {
    const target = files.lockfilePath;
    await writeFile(target, 'old');
    const journal = await writeJournalFile(
      root,
      [{ kind: 'write', target: 'prompts.lock.json' }],
      ['new content, long enough to be flipped somewhere in it'],
    );
    await writeFile(journal, damage(await readFile(journal)));
    const message = `Refusing to apply ${journal}, the journal of an interrupted sync: `;
    await expect(recoverStore(files)).rejects.toThrow(message);
    await expect(recoverStore(files)).rejects.toThrow(why);
    await expect(openStoreView(files)).rejects.toThrow(message);
    await expect(recoverStore(files)).rejects.toThrow(PromptlockError);
    expect(await readFile(target, 'utf8')).toBe('old');
    expect(await readdir(path.join(root, '.promptlock'))).toEqual(['tx-1-1.journal']); // left for the user to look at
  });

  it('a commit leaves no journal behind and no temporary file beside its targets', async () => {
    const targets = Array.from({ length: 50 }, (_, i) => inStore(`s${i % 5}/f${i}.json`));
    await commitChanges(
      files,
      targets.map((file, i) => ({ kind: 'write' as const, path: file, content: `content ${i}` })),
    );
    for (const [i, file] of targets.entries()) expect(await readFile(file, 'utf8')).toBe(`content ${i}`);
    expect((await readdir(path.join(root, '.promptlock'))).filter((n) => n.startsWith('tx-'))).toEqual([]);
    expect((await readdir(inStore('s0'))).sort()).toEqual([
      'f0.json',
      'f10.json',
      'f15.json',
      'f20.json',
      'f25.json',
      'f30.json',
      'f35.json',
      'f40.json',
      'f45.json',
      'f5.json',
    ]);
  });

  it('a leftover temporary name that is a link is removed, never written through', async () => {
    const target = files.lockfilePath;
    const victim = path.join(root, 'victim.txt');
    await writeFile(victim, 'victim');
    await symlink(victim, `${target}.promptlock-tmp`);
    await commitChanges(files, [{ kind: 'write', path: target, content: 'new' }]);
    expect(await readFile(victim, 'utf8')).toBe('victim');
    expect(await readFile(target, 'utf8')).toBe('new');
    expect((await lstat(target)).isSymbolicLink()).toBe(false);
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
    await writeFile(
      path.join(root, '.promptlock/run.lock'),
      JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), command: 'sync', startedAt: 'x' }),
    );
    await (await acquireRunLock(root, 'sync')).release();
    await rm(root, { recursive: true, force: true });
  });
});

describe('lockfile file paths', () => {
  const withPath = (p: string) =>
    JSON.stringify({
      lockfileVersion: 1,
      prompts: {
        '@a/x': {
          selector: null,
          version: 'v1',
          id: 'i',
          integrity: 'sha256-AA==',
          variables: [],
          files: { c1: { path: p, size: 1, integrity: 'sha256-AA==' } },
        },
      },
    });
  it.each([
    '../../src/index.ts',
    'a/x.files/../../../etc/passwd',
    'a/y.files/f.txt',
    'a/x.files/sub/f.txt',
    'a/x.files/.hidden',
    '/etc/passwd',
  ])('refuses %s: a locked file must stay in its own package folder', (p) => {
    expect(() => decodeLockfile(withPath(p), 'l.json')).toThrow('must be a file name inside "a/x.files/"');
  });
  it('accepts a plain file name in the package folder', () => {
    expect(decodeLockfile(withPath('a/x.files/faq-v2.pdf'), 'l.json').prompts['@a/x']!.files!.c1!.path).toBe('a/x.files/faq-v2.pdf');
  });
});
