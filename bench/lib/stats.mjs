/** Small statistics and formatting helpers shared by the benchmark scenarios. */

export function median(values) {
  return percentile(values, 50);
}

/** Linear-interpolated percentile (p in 0..100) of a non-empty list. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const rank = ((sorted.length - 1) * p) / 100;
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low] + (sorted[high] - sorted[low]) * (rank - low);
}

export function formatValue(value, unit) {
  if (value === undefined || value === null || Number.isNaN(value)) return '';
  if (unit === 'ms') return `${value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString('en-US')} ms`;
  if (unit === 's') return `${value.toFixed(3)} s`;
  if (unit === 'B') return `${Math.round(value).toLocaleString('en-US')} B`;
  if (unit === 'ops/s') return `${Math.round(value).toLocaleString('en-US')} ops/s`;
  return `${Number.isInteger(value) ? value.toLocaleString('en-US') : value.toFixed(2)}${unit ? ` ${unit}` : ''}`;
}

export const thousands = (n) => n.toLocaleString('en-US');
