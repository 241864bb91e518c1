/**
 * The digest of a module's inputs, written into its banner. Lockfile entries pin each snapshot by
 * integrity, so entries plus the generator's own revision determine the module: when the digest
 * in the file on disk matches, `generate` is done without reading a single snapshot. (A snapshot
 * edited behind the lockfile's back is drift that `check` reports; `generate --force` rebuilds.)
 */
import { createHash } from 'node:crypto';

/** Bump when the emitted code changes for the same inputs, so old modules are rebuilt. */
export const CODEGEN_REVISION = '1';

export const DIGEST_MARKER = '// promptlock-inputs: ';

export interface DigestInput {
  name: string;
  version: string;
  integrity: string;
}

/** `sha256-…` over the revision, the runtime text, and each entry's name, version and integrity. */
export function inputsDigest(entries: readonly DigestInput[], runtime: string): string {
  const hash = createHash('sha256');
  hash.update(`promptlock codegen ${CODEGEN_REVISION}\n`);
  hash.update(runtime);
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of sorted) hash.update(`\n${entry.name}\0${entry.version}\0${entry.integrity}`);
  return `sha256-${hash.digest('base64')}`;
}

/** The digest recorded in a module's first lines, if any. */
export function readDigest(head: string): string | undefined {
  const start = head.indexOf(DIGEST_MARKER);
  if (start === -1) return undefined;
  const end = head.indexOf('\n', start);
  return end === -1 ? undefined : head.slice(start + DIGEST_MARKER.length, end);
}
