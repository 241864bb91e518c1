/** Suggestions for a name the service does not know ("did you mean …"). */
import { editDistance } from '../util/edit-distance.js';


/** Up to `limit` candidates close to `name`, closest first. */
export function closeMatches(name: string, candidates: readonly string[], limit = 3): string[] {
  const threshold = Math.max(3, Math.floor(name.length / 3));
  return candidates
    .map((candidate) => ({ candidate, d: editDistance(name, candidate) }))
    .filter(({ candidate, d }) => d <= threshold || candidate.includes(name.split('/')[1] ?? name))
    .sort((x, y) => x.d - y.d || x.candidate.localeCompare(y.candidate))
    .slice(0, limit)
    .map(({ candidate }) => candidate);
}
