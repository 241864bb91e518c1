import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type JournalHeader, writeJournal } from '../../src/store/journal-file.js';

interface JournalFileOptions {
  id?: string;
  suffix?: string;
  storeDir?: string;
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
 * its path. `contents` holds the new bytes of each op (undefined for a delete).
 */
export async function writeJournalFile(
  root: string,
  ops: JournalHeader['ops'],
  contents: readonly (string | undefined)[],
  options: JournalFileOptions = {},
): Promise<string> {
  const file = await journalFile(root, options);
  const buffers = contents.map((c) => (c === undefined ? undefined : Buffer.from(c)));
  await writeJournal(file, { ops, ...(options.storeDir ? { storeDir: options.storeDir } : {}) }, buffers);
  return file;
}

/**
 * The same, in the format promptlock wrote before the journal was staged as prompts arrive
 * (`promptlock-journal 1`: header first, then the bytes in op order, then the checksum of it all).
 */
export async function writeJournalFileV1(
  root: string,
  ops: JournalHeader['ops'],
  contents: readonly (string | undefined)[],
  options: JournalFileOptions = {},
): Promise<string> {
  const file = await journalFile(root, options);
  const buffers = contents.map((c) => Buffer.from(c ?? ''));
  const sized = ops.map((op, i) => (op.kind === 'write' ? { ...op, size: buffers[i]!.byteLength } : op));
  const header = { ops: sized, ...(options.storeDir ? { storeDir: options.storeDir } : {}) };
  const body = Buffer.concat([Buffer.from(`promptlock-journal 1\n${JSON.stringify(header)}\n`), ...buffers]);
  await writeFile(file, Buffer.concat([body, Buffer.from(`\nend ${createHash('sha256').update(body).digest('hex')}\n`)]));
  return file;
}

/**
 * A hand-edited journal: `edit` changes its header text, and the checksum is recomputed (what
 * someone who knows the format could do). Only for version 2 journals.
 */
export function resealJournal(bytes: Buffer, edit: (header: string) => string): Buffer {
  const headerAt = Number(/^promptlock-journal 2 (\d{16})\n/.exec(bytes.toString('latin1', 0, 38))![1]);
  const headerEnd = bytes.indexOf(0x0a, headerAt);
  const header = Buffer.from(`${edit(bytes.toString('utf8', headerAt, headerEnd))}\n`);
  const first = bytes.subarray(0, 38);
  const digest = createHash('sha256').update(bytes.subarray(38, headerAt)).update(header).update(first).digest('hex');
  return Buffer.concat([bytes.subarray(0, headerAt), header, Buffer.from(`end ${digest}\n`)]);
}
