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

const cases: Array<[string, { before: CodegenPrompt[]; after: CodegenPrompt[]; expectIn: string }]> = [
  ['one snapshot edited', { before: [a, b], after: [edited, b], expectIn: 'sorry about' }],
  ['same snapshot, new locked version', { before: [a, b], after: [relabelled, b], expectIn: '@acme/reply:v7' }],
  ['a new prompt renames an unchanged one', { before: [a, b], after: [a, b, collides], expectIn: 'export function acmeReply(' }],
  ['a prompt removed', { before: [a, b], after: [b], expectIn: 'export function welcome(' }],
  ['nothing changed', { before: [a, b], after: [a, b], expectIn: 'export function reply(' }],
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
    await generate({ ...(await writeStore(dir, after)), outputPath, force: true, cache });
    const fresh = generateModule(after.map((item) => structuredClone(item)));
    const written = await readFile(outputPath, 'utf8');
    expect(written).toBe(fresh);
    expect(written).toContain(expectIn);
  });
});
