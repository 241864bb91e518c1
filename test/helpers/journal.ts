import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { type JournalHeader, writeJournal } from '../../src/store/journal-file.js';

/**
 * Writes what a run killed right after its commit point leaves in `<root>/.promptlock/`: the
 * committed journal `<id>.journal` (or, with `suffix: '.pending'`, one killed before it). Returns
 * its path. `contents` holds the new bytes of each op (undefined for a delete).
 */
export async function writeJournalFile(
  root: string,
  ops: JournalHeader['ops'],
  contents: readonly (string | undefined)[],
  { id = 'tx-1-1', suffix = '.journal', storeDir }: { id?: string; suffix?: string; storeDir?: string } = {},
): Promise<string> {
  const dir = path.join(root, '.promptlock');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${id}${suffix}`);
  const buffers = contents.map((c) => (c === undefined ? undefined : Buffer.from(c)));
  const sized = ops.map((op, i) => (op.kind === 'write' && op.size === undefined ? { ...op, size: buffers[i]?.byteLength ?? 0 } : op));
  const handle = await open(file, 'w');
  try {
    await writeJournal(handle, { ops: sized, ...(storeDir ? { storeDir } : {}) }, buffers);
  } finally {
    await handle.close();
  }
  return file;
}
