/**
 * Where live prompts call the service, read from the same places as the CLI (docs/live.md, "What
 * is followed"): the environment first, then `.env` and `.env.local` of the project (the folder
 * of the lockfile), then the `baseUrl` option, then the hosted default.
 */
import { DEFAULT_BASE_URL, isLoopbackHost, refuseBadBaseUrl } from '../config/base-url.js';
import { ENV_FILES, withEnvFiles } from '../config/env-files.js';
import { apiKeyFromEnv } from '../secrets.js';

export interface LiveConnection {
  /** Without a trailing slash. */
  baseUrl: string;
  apiKey: string | undefined;
  /** Why no request is sent at all (no key for a service that needs one), in words; else undefined. */
  unusable: string | undefined;
}

export function liveConnection(option: string | undefined, projectDir: string, env: NodeJS.ProcessEnv = process.env): LiveConnection {
  const merged = withEnvFiles(projectDir, env);
  const apiKey = apiKeyFromEnv(merged);
  const files = `${ENV_FILES.join(' or ')} of ${projectDir}`;
  const fromEnv = merged.PROMPTLOCK_BASE_URL?.trim();
  const baseUrl = (fromEnv || option || DEFAULT_BASE_URL).replace(/\/+$/, '');
  const from = fromEnv
    ? env.PROMPTLOCK_BASE_URL?.trim()
      ? 'PROMPTLOCK_BASE_URL in the environment'
      : `PROMPTLOCK_BASE_URL in ${files}`
    : option
      ? 'the baseUrl option'
      : undefined;
  refuseBadBaseUrl(baseUrl, apiKey, from);
  const unusable =
    apiKey === undefined && !isLoopbackHost(new URL(baseUrl).hostname)
      ? `no API key for the service at ${baseUrl} (set PROMPTLOCK_API_KEY in the environment or in ${files})`
      : undefined;
  return { baseUrl, apiKey, unusable };
}
