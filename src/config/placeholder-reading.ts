import type { PlaceholderOption } from './config-schema.js';

/**
 * How `name`'s placeholders are read (the `placeholders` option, README "Placeholders"): its own
 * entry, else its workspace's glob; undefined reads it by the grammar alone. Names kept as text
 * come sorted, once each, as the lockfile records them.
 */
export function readingFor(
  placeholders: Readonly<Record<string, PlaceholderOption | undefined>>,
  name: string,
): PlaceholderOption | undefined {
  // Own keys only: a package named like a member of Object.prototype reads nothing inherited.
  const pick = (key: string) => (Object.hasOwn(placeholders, key) ? placeholders[key] : undefined);
  const reading = pick(name) ?? pick(`${name.slice(0, name.indexOf('/'))}/*`);
  if (reading === undefined || reading === 'sdk') return reading;
  return { text: [...new Set(reading.text)].sort() };
}
