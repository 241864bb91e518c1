/**
 * Reading a config file, or the package.json that may hold one, as text: the one rule every
 * reader of the config follows (the loader's checks before cosmiconfig reads, a load error's code
 * frame, `add` and `remove`, a merged conflict).
 */
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { FILE_BYTES, type ReadRule, readBounded } from '../util/read-bounded.js';

/**
 * How a config file (or the package.json that may hold one) is read: it comes with the repository,
 * so a link is followed only to a regular file, of at most FILE_BYTES.config (docs/security.md,
 * "Files on disk"): a FIFO hung `generate` (so `npm install`), a link to /dev/zero grew it without end.
 */
export function configRule(file: string): ReadRule {
  return {
    what: 'a config file',
    maxBytes: FILE_BYTES.config,
    links: 'follow',
    fix: `Replace ${path.basename(file)} with a regular file holding the config (or remove it).`,
    refusal: ConfigError,
  };
}

/** The text of a config file or package.json, read as configRule says; undefined when it does not exist. */
export async function readConfigText(file: string): Promise<string | undefined> {
  return (await readBounded(file, configRule(file)))?.toString('utf8');
}
