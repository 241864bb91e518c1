/**
 * Ids and timestamps of hand-authored prompts when the author gives none. They are derived from
 * names, never from file times, so every run (and every clone) serves the same values and the
 * client's lockfile does not churn.
 */
import { createHash } from 'node:crypto';

function digest(parts: readonly string[]): Buffer {
  return createHash('sha256').update(parts.join('\u0000')).digest();
}

/** `pmt_5f3c…`: a prefix and 20 hex characters of a hash of `parts`. */
export function deriveId(prefix: string, ...parts: string[]): string {
  return `${prefix}_${digest(parts).toString('hex').slice(0, 20)}`;
}

const EPOCH = Date.UTC(2025, 0, 1);
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** A whole-minute time in the first half of 2025, fixed for `parts`. */
export function deriveCreatedAt(...parts: string[]): number {
  return EPOCH + (digest(parts).readUInt32BE(0) % (180 * 24 * 60)) * MINUTE;
}

/**
 * Creation time of version `n` of a package created at `packageCreatedAt`: versions three days
 * apart, so newer versions are always later. The draft (`n` = undefined) follows the last one.
 */
export function versionCreatedAt(packageCreatedAt: number, n: number | undefined, highest: number): number {
  if (n === undefined) return packageCreatedAt + Math.max(0, highest - 1) * 3 * DAY + DAY;
  return packageCreatedAt + (n - 1) * 3 * DAY;
}
