import { ConfigError } from '../errors.js';
import { findKeyIn, maskKey } from '../secrets.js';

/** Option names people reach for when they try to put the key in the file. */
const KEY_OPTIONS = new Set(['apiKey', 'api_key', 'apikey', 'key', 'token', 'apiToken', 'bearer']);

/**
 * Refuses a config holding an API key, wherever it sits: a config file is committed and shared,
 * so a key in it is a leaked key. Runs before the schema so the message is about the key, not
 * about an unknown option, and the key is shown masked.
 */
export function rejectApiKey(raw: unknown, where: string): void {
  const found = findKey(raw, '');
  if (!found) return;
  throw new ConfigError(
    `${where} contains an API key (option "${found.path}": ${maskKey(found.value)}). ` +
      'Keys are read only from the environment: remove it and set PROMPTLOCK_API_KEY (or BAYT_API_KEY) instead.',
    { hint: 'If the file was ever committed or shared, revoke that key and create a new one.' },
  );
}

function findKey(value: unknown, path: string, depth = 0): { path: string; value: string } | undefined {
  if (typeof value === 'string') {
    // Anywhere in the string: `https://x/?k=sk_live_…` and `Bearer sk_live_…` are keys too.
    const key = findKeyIn(value);
    return key ? { path, value: key } : undefined;
  }
  if (depth > 8 || value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findKey(item, `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [name, item] of Object.entries(value)) {
    const itemPath = path ? `${path}.${name}` : name;
    if (depth === 0 && KEY_OPTIONS.has(name) && item !== undefined && item !== null && item !== '') {
      return { path: itemPath, value: typeof item === 'string' ? item : '' };
    }
    const found = findKey(item, itemPath, depth + 1);
    if (found) return found;
  }
  return undefined;
}
