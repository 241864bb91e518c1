import { editDistance } from '../util/edit-distance.js';

/** The closest of `candidates` to a mistyped option name, if one is close enough to suggest. */
export function didYouMean(name: string, candidates: readonly string[]): string | undefined {
  const normal = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = normal(name) === normal(candidate) ? 0 : editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (!best || distance < best.distance) best = { candidate, distance };
  }
  // A third of the name's length keeps "timeout"→"timeouts" and drops unrelated short names.
  const limit = Math.max(1, Math.floor(name.length / 3));
  return best && best.distance <= limit ? best.candidate : undefined;
}
