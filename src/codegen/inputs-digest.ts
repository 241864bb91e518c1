/**
 * The digest of a module's inputs, written into its banner. The lockfile pins each snapshot by
 * integrity, so the lockfile plus the generator's own revision determine the module: when the
 * digest in the file on disk matches, `generate` is done without reading a single snapshot or even
 * parsing the lockfile. (A snapshot edited behind the lockfile's back is drift that `check`
 * reports; `generate --force` rebuilds.)
 *
 * The digest is taken over the canonical lockfile text, so the module computes it from its entries
 * alone and the fast path from the file's bytes; a lockfile not in canonical form (hand-formatted)
 * only misses the fast path.
 */
import { createHash } from 'node:crypto';

/** Bump when the emitted code changes for the same inputs, so old modules are rebuilt. */
export const CODEGEN_REVISION = '2';

/** `sha256-…` over the revision, the runtime text and the canonical lockfile text. */
export function inputsDigest(lockfileText: string, runtime: string): string {
  return `sha256-${createHash('sha256')
    .update(`promptlock codegen ${CODEGEN_REVISION}\n`)
    .update(runtime)
    .update('\n')
    // git may check the lockfile out with CRLF line ends; the canonical text has LF.
    .update(lockfileText.includes('\r') ? lockfileText.replace(/\r\n/g, '\n') : lockfileText)
    .digest('base64')}`;
}

const INPUTS_LINE = /^\/\/ promptlock-inputs: (sha256-[A-Za-z0-9+/=]+) \((\d+) prompts?\)$/m;

/** The banner line recording the inputs (and the prompt count, so a no-op can report it). */
export function inputsLine(digest: string, count: number): string {
  return `// promptlock-inputs: ${digest} (${count} ${count === 1 ? 'prompt' : 'prompts'})`;
}

/** The inputs recorded in a module's first lines, if any. */
export function readInputsLine(head: string): { digest: string; count: number } | undefined {
  const match = INPUTS_LINE.exec(head);
  return match ? { digest: match[1]!, count: Number(match[2]) } : undefined;
}
