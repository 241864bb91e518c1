/**
 * The digest of a module's inputs, written into its banner. The lockfile pins each snapshot by
 * integrity, so the lockfile plus the generator's own revision determine the module: when the
 * digest in the file on disk matches, `generate` is done without reading a single snapshot or even
 * parsing the lockfile. (A snapshot edited behind the lockfile's back is drift that `check`
 * reports; `promptlock sync --frozen` restores it.)
 *
 * The same line also seals the module: the digest of the module's own text (without the seal), so
 * a module edited by hand, truncated or replaced fails the fast path and is rebuilt. One read and
 * one hash of the file, no snapshot read (README, "Performance", has the figures).
 *
 * The digest is taken over the canonical lockfile text, so the module computes it from its entries
 * alone and the fast path from the file's bytes; a lockfile not in canonical form (hand-formatted)
 * only misses the fast path.
 */
import { createHash } from 'node:crypto';

/** Bump when the emitted code changes for the same inputs, so old modules are rebuilt. */
const CODEGEN_REVISION = '2';

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

const INPUTS_LINE = /^\/\/ promptlock-inputs: (sha256-[A-Za-z0-9+/=]+) \((\d+) prompts?\)(; module (sha256-[A-Za-z0-9+/=]+))?$/m;

/** The banner is within the first bytes; the seal is looked for there only. */
const BANNER_BYTES = 1024;

/** The banner line recording the inputs (and the prompt count, so a no-op can report it). */
export function inputsLine(digest: string, count: number): string {
  return `// promptlock-inputs: ${digest} (${count} ${count === 1 ? 'prompt' : 'prompts'})`;
}

function textDigest(before: string | Buffer, after: string | Buffer): string {
  return `sha256-${createHash('sha256').update(before).update(after).digest('base64')}`;
}

/** Adds the module's own digest to its inputs line: `…(3 prompts); module sha256-…`. */
export function sealModule(text: string): string {
  const match = INPUTS_LINE.exec(text.slice(0, BANNER_BYTES));
  if (!match || match[3]) throw new Error('sealModule: the text has no unsealed inputs line');
  const end = match.index + match[0].length;
  const before = text.slice(0, end);
  const after = text.slice(end);
  return `${before}; module ${textDigest(before, after)}${after}`;
}

/**
 * The inputs recorded in a module's text when its seal matches the text (not edited since it was
 * generated), or undefined: no inputs line, no seal (a module of an earlier promptlock), or a text
 * that differs from what was sealed.
 */
export function readSealedInputs(bytes: Buffer): { digest: string; count: number } | undefined {
  // Latin-1, so string offsets are byte offsets (the banner itself is ASCII).
  const match = INPUTS_LINE.exec(bytes.subarray(0, BANNER_BYTES).toString('latin1'));
  if (!match?.[3]) return undefined;
  const end = match.index + match[0].length;
  const sealStart = end - match[3].length;
  // Hashing the bytes as read: decoding 10 MB to a string first costs several times the hash.
  if (textDigest(bytes.subarray(0, sealStart), bytes.subarray(end)) !== match[4]) return undefined;
  return { digest: match[1]!, count: Number(match[2]) };
}
