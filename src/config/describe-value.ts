import { maskKeysIn } from '../secrets.js';

/** A short, safe rendering of a config value for an error message: never a whole key. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    // Mask before shortening, so not even part of a pasted key is shown.
    const safe = maskKeysIn(value);
    return JSON.stringify(safe.length > 80 ? `${safe.slice(0, 77)}...` : safe);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}
