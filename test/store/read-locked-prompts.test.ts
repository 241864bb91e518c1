/**
 * `readLockedPrompts` (what `generate` reads) with the reuse cache a long-running caller owns:
 * an unchanged snapshot is handed out as the same prompt object (so its compiled function is
 * reused), an edited one is decoded again, and the cache is the caller's, not module state.
 */
import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { snapshotPath } from '../../src/store/paths.js';
import { createSnapshotCache, readLockedPrompts } from '../../src/store/read-store.js';
import { codegenPrompt, tempDir, writeStore } from '../codegen/helpers.js';

const a = codegenPrompt('@acme/reply', { content: 'Dear {{name}}' });
const b = codegenPrompt('@acme/welcome', { content: 'Welcome!' });

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir('read-locked'));
});
afterEach(() => remove());

describe('readLockedPrompts with a snapshot cache', () => {
  it('reuses unchanged snapshots from the same cache only', async () => {
    const store = await writeStore(dir, [a, b]);
    const cache = createSnapshotCache();
    const first = await readLockedPrompts(store, { cache });
    const second = await readLockedPrompts(store, { cache });
    expect(second.map((item) => item.prompt)).toEqual(first.map((item) => item.prompt));
    expect(second[0]!.prompt).toBe(first[0]!.prompt);
    expect(second[1]!.prompt).toBe(first[1]!.prompt);

    // Another cache (another watcher), or none, shares nothing with it.
    const other = await readLockedPrompts(store, { cache: createSnapshotCache() });
    expect(other[0]!.prompt).not.toBe(first[0]!.prompt);
    expect((await readLockedPrompts(store))[0]!.prompt).not.toBe(first[0]!.prompt);
  });

  it('decodes an edited snapshot again and reports it as not matching the lockfile', async () => {
    const store = await writeStore(dir, [a, b]);
    const cache = createSnapshotCache();
    const first = await readLockedPrompts(store, { cache });
    const file = snapshotPath(store.snapshotsDir, '@acme/reply');
    await writeFile(file, `${JSON.stringify({ ...a.prompt, content: 'Edited {{name}}' }, null, 2)}\n`);
    const mismatched: string[] = [];
    const second = await readLockedPrompts(store, { cache, mismatched });
    expect(second[0]!.prompt).not.toBe(first[0]!.prompt);
    expect(second[0]!.prompt.content).toBe('Edited {{name}}');
    expect(second[1]!.prompt).toBe(first[1]!.prompt);
    expect(mismatched).toEqual(['@acme/reply']);
  });
});
