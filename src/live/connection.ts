/**
 * Where live prompts call the service, read from the same places as the CLI (docs/live.md, "What
 * is followed"): the environment first, then `.env` and `.env.local` of the project (the folder
 * of the lockfile), then the `baseUrl` option, then the hosted default.
 */
import { DEFAULT_BASE_URL, isLoopbackHost, refuseBadBaseUrl } from '../config/base-url.js';
import { ENV_FILES, readEnv } from '../config/env-files.js';
import { refuseUnsendableKey } from '../config/sendable.js';
import { apiKeyVariable } from '../secrets.js';

export interface LiveConnection {
  /** Without a trailing slash. */
  baseUrl: string;
  apiKey: string | undefined;
  /** Where the key was read (`PROMPTLOCK_API_KEY in .env.local`). */
  apiKeySource: string | undefined;
  /** Why no request is sent at all (no key for a service that needs one), in words; else undefined. */
  unusable: string | undefined;
}

/** Throws ConfigError for an address or a key no request can carry: a wrong setup, told at once. */
export function liveConnection(option: string | undefined, projectDir: string, env: NodeJS.ProcessEnv = process.env): LiveConnection {
  const project = readEnv(projectDir, env);
  const found = apiKeyVariable(project.env);
  const apiKey = found?.key;
  const apiKeySource = found ? `${found.variable} in ${project.sourceOf(found.variable)}` : undefined;
  const files = `${ENV_FILES.join(' or ')} of ${projectDir}`;
  const fromEnv = project.env.PROMPTLOCK_BASE_URL?.trim();
  const baseUrl = (fromEnv || option || DEFAULT_BASE_URL).replace(/\/+$/, '');
  const from = fromEnv ? `PROMPTLOCK_BASE_URL in ${project.sourceOf('PROMPTLOCK_BASE_URL')}` : option ? 'the baseUrl option' : undefined;
  refuseBadBaseUrl(baseUrl, apiKey, from);
  refuseUnsendableKey(apiKey, apiKeySource!);
  const unusable =
    apiKey === undefined && !isLoopbackHost(new URL(baseUrl).hostname)
      ? `no API key for the service at ${baseUrl} (set PROMPTLOCK_API_KEY in the environment or in ${files})`
      : undefined;
  return { baseUrl, apiKey, apiKeySource, unusable };
}
