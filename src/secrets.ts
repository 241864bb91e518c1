/** The API key must never reach a file, a log line or an error message. */

/** `sk_live_abcdef…wxyz` → `sk_live…wxyz` (first 7 characters, an ellipsis, the last 4). */
export function maskKey(key: string): string {
  if (key.length <= 11) return '…'.padEnd(Math.min(key.length, 4), '*');
  return `${key.slice(0, 7)}…${key.slice(-4)}`;
}

/**
 * The public, documented key of the local Prompt Service (`promptlock serve`). Not a secret: it is
 * printed by `serve` and written in the docs, so key-shaped masking leaves it alone.
 */
export const LOCAL_TEST_KEY = 'sk_test_PromptlockLocalTestKey00000000000000000000';

/** Anything shaped like a service key, anywhere in a text. */
const KEY_SHAPE = /sk_(?:live|test)_[A-Za-z0-9]{8,}/g;

/** The first key-shaped token in `text`, if any. */
export function findKeyIn(text: string): string | undefined {
  return text.match(KEY_SHAPE)?.[0];
}

/** Masks every key-shaped token in `text` (except the public local test key). */
export function maskKeysIn(text: string): string {
  return text.replace(KEY_SHAPE, (key) => (key === LOCAL_TEST_KEY ? key : maskKey(key)));
}

/**
 * Replaces every occurrence of each secret in `text` with its masked form, and masks anything
 * else shaped like a key: a key pasted into a config value must not come back in an error.
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 8) out = out.split(secret).join(maskKey(secret));
  }
  return maskKeysIn(out);
}

/** Reads the API key from the environment (`PROMPTLOCK_API_KEY`, else `BAYT_API_KEY`). */
export function apiKeyFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return apiKeyVariable(env)?.key;
}

/** The API key and the variable it was read from, as `apiKeyFromEnv` picks it. */
export function apiKeyVariable(env: NodeJS.ProcessEnv): { key: string; variable: 'PROMPTLOCK_API_KEY' | 'BAYT_API_KEY' } | undefined {
  const own = env.PROMPTLOCK_API_KEY?.trim();
  if (own) return { key: own, variable: 'PROMPTLOCK_API_KEY' };
  const bayt = env.BAYT_API_KEY?.trim();
  return bayt ? { key: bayt, variable: 'BAYT_API_KEY' } : undefined;
}
