/** A validation issue's path as written in code: `['prompts', 2, 'name']` → `prompts[2].name`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`)).join('');
}
