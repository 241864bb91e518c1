/**
 * The digest of a module's inputs, written into its banner. The lockfile pins each snapshot by
 * integrity, so the lockfile plus the generator's own revision determine the module, as long as
 * every snapshot matches its integrity (`generate` checks that too, and a module built from a
 * snapshot edited by hand records that snapshot's integrity instead, so it never passes for the
 * lockfile's).
 *
 * The same line also seals the module: the digest of the module's own text (without the seal), so
 * a module edited by hand, truncated or replaced fails the check and is rebuilt. The banner alone
 * tells a module built from other inputs; the rest is hashed only when it records these.
 *
 * The digest is taken over the canonical lockfile text, so the module computes it from its entries
 * alone and the check from the file's bytes; a lockfile not in canonical form (hand-formatted)
 * only misses the quick check.
 */
import { createHash } from 'node:crypto';

/**
 * Bump when the emitted code changes for the same inputs, so old modules are rebuilt: it is part
 * of the inputs digest and of `generate`'s up-to-date record (store/module-file.ts).
 */
export const CODEGEN_REVISION = '4';

/**
 * `sha256-…` over the revision, the runtime text and the canonical lockfile text. The lockfile may
 * be given as its bytes (UTF-8, as on disk): they are hashed as they are, without decoding them.
 */
export function inputsDigest(lockfile: string | Buffer, runtime: string): string {
  // git may check the lockfile out with CRLF line ends; the canonical text has LF.
  const canonical =
    typeof lockfile === 'string'
      ? lockfile.includes('\r')
        ? lockfile.replace(/\r\n/g, '\n')
        : lockfile
      : lockfile.includes(0x0d)
        ? lockfile.toString('utf8').replace(/\r\n/g, '\n')
        : lockfile;
  return `sha256-${createHash('sha256')
    .update(`promptlock codegen ${CODEGEN_REVISION}\n`)
    .update(runtime)
    .update('\n')
    .update(canonical)
    .digest('base64')}`;
}

const INPUTS_LINE = /^\/\/ promptlock-inputs: (sha256-[A-Za-z0-9+/=]+) \((\d+) prompts?\)(; module (sha256-[A-Za-z0-9+/=]+))?$/m;

/** The banner is within the first bytes; the seal is looked for there only. */
const BANNER_BYTES = 1024;

/** The banner line recording the inputs (and the prompt count, so a no-op can report it). */
export function inputsLine(digest: string, count: number): string {
  return `// promptlock-inputs: ${digest} (${count} ${count === 1 ? 'prompt' : 'prompts'})`;
}

/**
 * The module's text with its own digest added to its inputs line (`…(3 prompts); module sha256-…`):
 * `head` ends with that line, `rest` is everything after it.
 */
export function sealModule(head: string, rest: string): string {
  const match = INPUTS_LINE.exec(head.slice(0, BANNER_BYTES));
  if (!match || match[3] || match.index + match[0].length !== head.length) {
    throw new Error('sealModule: the head does not end with an unsealed inputs line');
  }
  return `${head}; module sha256-${createHash('sha256').update(head).update(rest).digest('base64')}${rest}`;
}

/**
 * What a module's banner records, when the module is exactly as it was generated (its seal holds):
 * the inputs digest and the number of prompts. Undefined for a module edited by hand, truncated, or
 * of an earlier promptlock (no seal).
 */
export function readSeal(module: Buffer): { digest: string; count: number } | undefined {
  // Latin-1, so string offsets are byte offsets (the banner itself is ASCII).
  const match = INPUTS_LINE.exec(module.subarray(0, BANNER_BYTES).toString('latin1'));
  if (!match?.[3]) return undefined;
  const end = match.index + match[0].length;
  const sealStart = end - match[3].length;
  const hash = createHash('sha256').update(module.subarray(0, sealStart)).update(module.subarray(end));
  return `sha256-${hash.digest('base64')}` === match[4] ? { digest: match[1]!, count: Number(match[2]) } : undefined;
}
