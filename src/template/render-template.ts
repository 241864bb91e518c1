import { parseTemplate, type Segment } from './parse-template.js';

/** A variable's value as text: arrays and objects as JSON, anything else as its plain string form. */
export function stringifyValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * Fills in the placeholders of `text` (or its parsed `segments`). A placeholder whose variable has
 * no value (`undefined` or absent) stays exactly as written.
 */
export function renderTemplate(text: string | readonly Segment[], values: Readonly<Record<string, unknown>>): string {
  const segments = typeof text === 'string' ? parseTemplate(text) : text;
  let out = '';
  for (const segment of segments) {
    if (segment.kind === 'text') {
      out += segment.text;
      continue;
    }
    const value = Object.hasOwn(values, segment.name) ? values[segment.name] : undefined;
    out += value === undefined ? segment.raw : stringifyValue(value);
  }
  return out;
}
