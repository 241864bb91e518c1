/** `1 prompt`, `2 prompts`; `many` for irregular plurals (`retry` → `retries`). */
export function pluralise(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
