/** The API key must never reach a file, a log line or an error message. */

/** `sk_live_abcdef…wxyz` → `sk_live…wxyz` (first 7 characters, an ellipsis, the last 4). */
export function maskKey(key: string): string {
  if (key.length <= 11) return '…'.padEnd(Math.min(key.length, 4), '*');
  return `${key.slice(0, 7)}…${key.slice(-4)}`;
}

/** Replaces every occurrence of each secret in `text` with its masked form. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 8) out = out.split(secret).join(maskKey(secret));
  }
  return out;
}

/** Reads the API key from the environment (`PROMPTLOCK_API_KEY`, else `BAYT_API_KEY`). */
export function apiKeyFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const key = env.PROMPTLOCK_API_KEY?.trim() || env.BAYT_API_KEY?.trim();
  return key || undefined;
}
