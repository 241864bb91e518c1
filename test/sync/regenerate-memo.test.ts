/**
 * `generate` given the reuse cache a long-running process (watch) keeps reuses what it compiled for
 * unchanged snapshots (the memo behind the watch-latency figure of `npm run bench`). Whatever changed between two runs,
 * the module must be exactly what a fresh generation of the new store gives.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CodegenPrompt, generateModule } from '../../src/codegen/index.js';
import { createGenerateCache, generate } from '../../src/sync/generate.js';
import { codegenPrompt, tempDir, writeStore } from '../codegen/helpers.js';

const a = codegenPrompt('@acme/reply', { content: 'Dear {{name}},\nthanks for {{topic:string // what}}.' });
const b = codegenPrompt('@acme/welcome', { content: 'Welcome!', systemPrompt: 'Be kind to {{name}}' });
const edited = codegenPrompt('@acme/reply', { content: 'Dear {{name}},\nsorry about {{topic:string // what}}.' });
const collides = codegenPrompt('@other/reply', { content: 'Hi {{who}}' });
const relabelled: CodegenPrompt = { ...a, entry: { ...a.entry, version: 'v7' } };
// The same snapshot read otherwise (README, "Placeholders": the config's option, recorded in the lockfile).
const range = codegenPrompt('@acme/range', { content: 'From {{start}} to {{end}}' });
const rangeReadOtherwise = codegenPrompt('@acme/range', { content: 'From {{start}} to {{end}}' }, { text: ['end'] });

const cases: Array<[string, { before: CodegenPrompt[]; after: CodegenPrompt[]; expectIn: string }]> = [
  ['one snapshot edited', { before: [a, b], after: [edited, b], expectIn: 'sorry about' }],
  ['same snapshot, new locked version', { before: [a, b], after: [relabelled, b], expectIn: '@acme/reply:v7' }],
  ['a new prompt renames an unchanged one', { before: [a, b], after: [a, b, collides], expectIn: 'export function acmeReply(' }],
  ['a prompt removed', { before: [a, b], after: [b], expectIn: 'export function welcome(' }],
  ['nothing changed', { before: [a, b], after: [a, b], expectIn: 'export function reply(' }],
  [
    'same snapshot, read otherwise',
    { before: [range, b], after: [rangeReadOtherwise, b], expectIn: 'content: `From ${start} to {{end}}`' },
  ],
];

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir('memo'));
});
afterEach(() => remove());

describe('generate, run again with the same reuse cache', () => {
  it.each(cases)('%s', async (_name, { before, after, expectIn }) => {
    const outputPath = path.join(dir, 'prompts.ts');
    const cache = createGenerateCache(); // what watch keeps between regenerations
    await generate({ ...(await writeStore(dir, before)), outputPath, cache });
    await generate({ ...(await writeStore(dir, after)), outputPath, cache });
    const fresh = generateModule(after.map((item) => structuredClone(item)));
    const written = await readFile(outputPath, 'utf8');
    expect(written).toBe(fresh);
    expect(written).toContain(expectIn);
  });
});

describe('the reuse cache and the files on disk', () => {
  it('sees a snapshot rewritten at once with the same size, and reuses what did not change', async () => {
    const { readLockedPrompts } = await import('../../src/store/read-store.js');
    const { encodeSnapshot, snapshotIntegrity } = await import('../../src/store/snapshot-format.js');
    const { snapshotPath } = await import('../../src/store/paths.js');
    const { writeFile } = await import('node:fs/promises');
    const store = await writeStore(dir, [a, b]);
    const outputPath = path.join(dir, 'prompts.ts');
    const cache = createGenerateCache();
    await generate({ ...store, outputPath, cache });
    const first = await readLockedPrompts(store, { cache: cache.snapshots });
    const second = await readLockedPrompts(store, { cache: cache.snapshots });
    // Unchanged files and lockfile: the same decoded objects, so the emitter's memo applies.
    expect(second.map((item) => item.prompt)).toEqual(first.map((item) => item.prompt));
    second.forEach((item, i) => {
      expect(item.prompt).toBe(first[i]!.prompt);
      expect(item.entry).toBe(first[i]!.entry);
    });

    // Same byte length, written right away, lockfile untouched: built as it is, with a warning.
    const sameSize = { ...a.prompt, content: a.prompt.content.replace('thanks', 'THANKS') };
    const file = snapshotPath(store.snapshotsDir, '@acme/reply');
    const before = await readFile(file);
    await writeFile(file, encodeSnapshot(sameSize));
    expect((await readFile(file)).length).toBe(before.length);
    const result = await generate({ ...store, outputPath, cache });
    expect(result.mismatched).toEqual(['@acme/reply']);
    const written = await readFile(outputPath, 'utf8');
    expect(written).toContain('THANKS');
    // The same code; the function's provenance records the edited snapshot's own integrity.
    const edited = { ...a, prompt: sameSize, entry: { ...a.entry, integrity: snapshotIntegrity(sameSize) } };
    expect(written).toBe(generateModule([edited, b].map((item) => structuredClone(item))));

    // Restored: the module is what it was, and nothing is rewritten after that.
    await writeFile(file, before);
    expect((await generate({ ...store, outputPath, cache })).mismatched).toEqual([]);
    expect(await readFile(outputPath, 'utf8')).toBe(generateModule([a, b].map((item) => structuredClone(item))));
    expect((await generate({ ...store, outputPath, cache })).written).toBe(false);
  });
});

describe('the reuse cache and a damaged store', () => {
  it('a workspace folder replaced by a file is reported as a missing snapshot, as without the cache', async () => {
    const { LockfileError } = await import('../../src/errors.js');
    const { rm, writeFile } = await import('node:fs/promises');
    const outputPath = path.join(dir, 'prompts.ts');
    const cache = createGenerateCache();
    const store = await writeStore(dir, [a, b]);
    await generate({ ...store, outputPath, cache });
    const workspace = path.join(store.snapshotsDir, 'acme');
    await rm(workspace, { recursive: true });
    await writeFile(workspace, 'not a folder');
    const failure = await generate({ ...store, outputPath, cache }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LockfileError);
    expect((failure as Error).message).toContain('@acme/reply');
  });
});
