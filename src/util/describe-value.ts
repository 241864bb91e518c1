/**
 * A value as an error message shows it: a string JSON-quoted (control characters and line
 * separators escaped, so it cannot move the terminal) and cut at 60 characters; a number, boolean,
 * null or undefined as it is; anything else by its kind. `clean` is applied to a string first
 * (the config passes `maskKeysIn`, so not even part of a pasted key is shown).
 */
export function describeValue(value: unknown, clean: (text: string) => string = (text) => text): string {
  if (typeof value === 'string') {
    const quoted = JSON.stringify(clean(value)).replace(
      /[\u007f-\u009f\u2028\u2029]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    return quoted.length > 60 ? `${quoted.slice(0, 57)}…` : quoted;
  }
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
