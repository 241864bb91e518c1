import { readFile } from 'node:fs/promises';

/**
 * The file's text (its bytes with `encoding` null), or undefined when it does not exist; any other
 * failure is thrown.
 */
export async function readIfExists(file: string): Promise<string | undefined>;
export async function readIfExists(file: string, encoding: null): Promise<Buffer | undefined>;
export async function readIfExists(file: string, encoding: 'utf8' | null = 'utf8'): Promise<string | Buffer | undefined> {
  try {
    return await readFile(file, encoding === null ? undefined : encoding);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
