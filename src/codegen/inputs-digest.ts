/**
 * The digest of a module's inputs, written into its banner. The lockfile pins each snapshot by
 * integrity, so the lockfile plus the generator's own revision determine the module: when the
 * digest in the file on disk matches, `generate` is done without reading a single snapshot or even
 * parsing the lockfile. (A snapshot edited behind the lockfile's back is drift that `check`
 * reports; `promptlock sync --frozen` restores it.)
 *
 * The same line also seals the module: the digest of the module's own text (without the seal), so
 * a module edited by hand, truncated or replaced fails the fast path and is rebuilt. The banner is
 * read first, alone; the rest of the file is read and hashed (in pieces, never held whole) only
 * when the banner records the expected inputs. No snapshot is read (README, "Performance", has
 * the figures).
 *
 * The digest is taken over the canonical lockfile text, so the module computes it from its entries
 * alone and the fast path from the file's bytes; a lockfile not in canonical form (hand-formatted)
 * only misses the fast path.
 */
import { createHash } from 'node:crypto';

/** Bump when the emitted code changes for the same inputs, so old modules are rebuilt. */
const CODEGEN_REVISION = '2';

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
 * The module's text, as pieces, with its own digest added to its inputs line (`…(3 prompts);
 * module sha256-…`): `head` ends with that line, `rest` is everything after it. Hashed piece by
 * piece and never joined here: a sync streams the pieces into its journal, so a large module is
 * never one string in memory (README, "Performance").
 */
export function sealModule(head: string, rest: readonly string[]): string[] {
  const match = INPUTS_LINE.exec(head.slice(0, BANNER_BYTES));
  if (!match || match[3] || match.index + match[0].length !== head.length) {
    throw new Error('sealModule: the head does not end with an unsealed inputs line');
  }
  const hash = createHash('sha256').update(head);
  for (const piece of rest) hash.update(piece);
  return [`${head}; module sha256-${hash.digest('base64')}`, ...rest];
}

/** What a module's banner records, and the running check of its seal over the rest of the file. */
export interface SealCheck {
  /** The inputs digest the banner records. */
  digest: string;
  /** The number of prompts the banner records. */
  count: number;
  /** Where the text after the seal starts: the bytes from here to the end go to `update`. */
  offset: number;
  update(bytes: Uint8Array): void;
  /** True when the bytes given match the seal: the module is exactly as it was generated. */
  matches(): boolean;
}

/**
 * Reads the banner from the first bytes of a module (at least BANNER_BYTES of them, or the whole
 * file when shorter): undefined when there is no inputs line or no seal (a module of an earlier
 * promptlock). The caller feeds the bytes from `offset` to the end of the file to `update`.
 */
export function checkSeal(head: Buffer): SealCheck | undefined {
  // Latin-1, so string offsets are byte offsets (the banner itself is ASCII).
  const match = INPUTS_LINE.exec(head.subarray(0, BANNER_BYTES).toString('latin1'));
  if (!match?.[3]) return undefined;
  const end = match.index + match[0].length;
  const sealStart = end - match[3].length;
  const hash = createHash('sha256').update(head.subarray(0, sealStart));
  return {
    digest: match[1]!,
    count: Number(match[2]),
    offset: end,
    update: (bytes) => void hash.update(bytes),
    matches: () => `sha256-${hash.digest('base64')}` === match[4],
  };
}

/** How many first bytes of a module `checkSeal` needs. */
export const SEAL_HEAD_BYTES = BANNER_BYTES;
