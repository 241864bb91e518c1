import { createHash } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { JournalHeader } from '../../src/store/journal-file.js';
import type { StoreFiles } from '../../src/store/journal-scope.js';
import { writeJournal } from '../../src/store/journal-writer.js';

interface JournalFileOptions {
  id?: string;
  suffix?: string;
}

async function journalFile(root: string, { id = 'tx-1-1', suffix = '.journal' }: JournalFileOptions): Promise<string> {
  const dir = path.join(root, '.promptlock');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${id}${suffix}`);
  await rm(file, { force: true });
  return file;
}

/**
 * Writes what a run killed right after its commit point leaves in `<root>/.promptlock/`: the
 * committed journal `<id>.journal` (or, with `suffix: '.pending'`, one killed before it). Returns
 * its path. The ops are written as given (targets relative to the project, `/`-separated, as
 * promptlock writes them, or anything a planted journal could hold); `contents` holds the new bytes
 * of each op (undefined for a delete or a move).
 */
export async function writeJournalFile(
  root: string,
  ops: JournalHeader['ops'],
  contents: readonly (string | undefined)[],
  options: JournalFileOptions = {},
): Promise<string> {
  const file = await journalFile(root, options);
  const buffers = contents.map((c) => (c === undefined ? undefined : Buffer.from(c)));
  await writeJournal(file, { ops }, buffers);
  return file;
}

/** promptlock's files in a test project at `root`, with the config's default names. */
export function storeFilesIn(root: string, output = 'src/generated/prompts.ts'): StoreFiles {
  return {
    rootDir: root,
    snapshotsDir: path.join(root, 'prompts'),
    lockfilePath: path.join(root, 'prompts.lock.json'),
    moduleFiles: [path.join(root, output)],
  };
}

/**
 * A hand-edited journal: `edit` changes its header text, and the checksum is recomputed (what
 * someone who knows the format could do).
 */
export function resealJournal(bytes: Buffer, edit: (header: string) => string): Buffer {
  const headerAt = Number(/^promptlock-journal 2 (\d{16})\n/.exec(bytes.toString('latin1', 0, 38))![1]);
  const headerEnd = bytes.indexOf(0x0a, headerAt);
  const header = Buffer.from(`${edit(bytes.toString('utf8', headerAt, headerEnd))}\n`);
  const first = bytes.subarray(0, 38);
  const digest = createHash('sha256').update(bytes.subarray(38, headerAt)).update(header).update(first).digest('hex');
  return Buffer.concat([bytes.subarray(0, headerAt), header, Buffer.from(`end ${digest}\n`)]);
}
