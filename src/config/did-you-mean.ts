/** The closest of `candidates` to a mistyped option name, if one is close enough to suggest. */
export function didYouMean(name: string, candidates: readonly string[]): string | undefined {
  const normal = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = normal(name) === normal(candidate) ? 0 : editDistance(name, candidate);
    if (!best || distance < best.distance) best = { candidate, distance };
  }
  // A third of the name's length keeps "timeout"→"timeouts" and drops unrelated short names.
  const limit = Math.max(1, Math.floor(name.length / 3));
  return best && best.distance <= limit ? best.candidate : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}
