import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

/** Files of variables read from the project root, later ones winning (docs: README, Configuration). */
export const ENV_FILES = ['.env', '.env.local'] as const;

/**
 * The environment with the variables of `.env` and `.env.local` at the project root filled in,
 * parsed as Node's own `process.loadEnvFile` does (`util.parseEnv`). The real environment wins,
 * and `process.env` is left untouched. Shared by the CLI's config loader and `promptlock/live`.
 */
export function withEnvFiles(rootDir: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const fromFiles: Record<string, string> = {};
  for (const name of ENV_FILES) {
    const file = path.join(rootDir, name);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    Object.assign(fromFiles, parseEnv(text));
  }
  const merged: NodeJS.ProcessEnv = { ...env };
  for (const [key, value] of Object.entries(fromFiles)) if (merged[key] === undefined) merged[key] = value;
  return merged;
}
