/** Suggestions for a name the service does not know ("did you mean …"). */

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

/** Up to `limit` candidates close to `name`, closest first. */
export function closeMatches(name: string, candidates: readonly string[], limit = 3): string[] {
  const threshold = Math.max(3, Math.floor(name.length / 3));
  return candidates
    .map((candidate) => ({ candidate, d: distance(name, candidate) }))
    .filter(({ candidate, d }) => d <= threshold || candidate.includes(name.split('/')[1] ?? name))
    .sort((x, y) => x.d - y.d || x.candidate.localeCompare(y.candidate))
    .slice(0, limit)
    .map(({ candidate }) => candidate);
}
