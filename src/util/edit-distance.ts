/** Levenshtein distance: the fewest single-character insertions, deletions and substitutions. */
export function editDistance(a: string, b: string): number {
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

/** The candidates a typo away from `word` (a few edits, by its length), closest first: "did you mean …". */
export function nearMatches(word: string, candidates: Iterable<string>, limit = 3): string[] {
  const threshold = Math.max(2, Math.floor(word.length / 3));
  return [...new Set(candidates)]
    .map((candidate) => ({ candidate, d: editDistance(word, candidate) }))
    .filter(({ candidate, d }) => candidate !== word && d <= threshold)
    .sort((x, y) => x.d - y.d || (x.candidate < y.candidate ? -1 : 1))
    .slice(0, limit)
    .map(({ candidate }) => candidate);
}
