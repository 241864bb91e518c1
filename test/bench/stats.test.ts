/** The statistics helpers of `npm run bench`. */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs file without type declarations
import { formatValue, median, percentile } from '../../bench/lib/stats.mjs';

describe('median and percentile', () => {
  it.each([
    ['odd count', { values: [3, 1, 2], p: 50, want: 2 }],
    ['even count', { values: [4, 1, 3, 2], p: 50, want: 2.5 }],
    ['single value', { values: [7], p: 95, want: 7 }],
    ['p95 interpolates', { values: Array.from({ length: 21 }, (_, i) => i * 10), p: 95, want: 190 }],
    ['p0 and unsorted input', { values: [5, 9, 1], p: 0, want: 1 }],
  ])('%s', (_name, { values, p, want }) => {
    expect(percentile(values, p)).toBeCloseTo(want, 9);
    if (p === 50) expect(median(values)).toBeCloseTo(want, 9);
  });
});

describe('formatValue', () => {
  it.each([
    [1234.4, 'ms', '1,234 ms'],
    [4.25, 'ms', '4.3 ms'],
    [1068, 'B', '1,068 B'],
    [541376.2, 'ops/s', '541,376 ops/s'],
    [0, '', '0'],
    [undefined, 'ms', ''],
  ])('%s %s → %s', (value, unit, want) => {
    expect(formatValue(value, unit)).toBe(want);
  });
});
