import { maskKey } from '../secrets.js';

const KEY_PREFIX = /^sk_(live|test)_/;

/** A short, safe rendering of a config value for an error message: never a whole key. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    if (KEY_PREFIX.test(value)) return maskKey(value);
    return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}
