import path from 'node:path';
import { ConfigError } from '../errors.js';
import { apiKeyFromEnv } from '../secrets.js';
import { BASE_URL_ALLOWED, baseUrlProblem } from './base-url.js';
import { describeValue } from './describe-value.js';
import { parseUserConfig } from './parse-user-config.js';
import { readConfigFile } from './read-config-file.js';
import { rejectApiKey } from './reject-api-key.js';
import type { ResolvedConfig } from './types.js';

export interface LoadConfigOptions {
  /** Where the search starts, and what `configPath` is relative to. */
  cwd: string;
  /** An explicit config file (`--config`); no search happens then. */
  configPath?: string;
  /** Source of PROMPTLOCK_API_KEY / BAYT_API_KEY / PROMPTLOCK_BASE_URL. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/**
 * Finds, loads and validates the config, applies defaults and the environment, and resolves
 * paths against the config file's folder. Throws ConfigError (exit code 2) for anything wrong.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<ResolvedConfig> {
  const env = options.env ?? process.env;
  const cwd = path.resolve(options.cwd);
  const file = await readConfigFile(cwd, options.configPath);
  const where = file ? describeConfigFile(file.filepath, cwd) : 'the default config';
  if (file) rejectApiKey(file.config, where);
  const parsed = parseUserConfig(file?.config, where);
  const rootDir = file ? path.dirname(file.filepath) : cwd;

  const snapshotsDir = path.resolve(rootDir, parsed.snapshots);
  if (snapshotsDir === rootDir || rootDir.startsWith(snapshotsDir + path.sep)) {
    throw new ConfigError(
      `Invalid value for option "snapshots" in ${where}: ${describeValue(parsed.snapshots)} is the project folder; snapshots need a folder of their own.`,
      { hint: 'Use a dedicated folder such as "prompts": promptlock removes the snapshots it no longer needs from it.' },
    );
  }
  return {
    configPath: file?.filepath,
    rootDir,
    baseUrl: trimSlash(baseUrlFromEnv(env) ?? parsed.baseUrl),
    prompts: parsed.prompts as string[],
    workspace: parsed.workspace,
    snapshotsDir,
    lockfilePath: path.resolve(rootDir, parsed.lockfile),
    outputPath: path.resolve(rootDir, parsed.output),
    concurrency: parsed.concurrency,
    watchInterval: parsed.watchInterval,
    contextFiles: parsed.contextFiles,
    timeout: parsed.timeout,
    limits: parsed.limits,
    apiKey: apiKeyFromEnv(env),
  };
}

function baseUrlFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.PROMPTLOCK_BASE_URL?.trim();
  if (!value) return undefined;
  const problem = baseUrlProblem(value);
  if (problem) {
    throw new ConfigError(
      `Invalid value for PROMPTLOCK_BASE_URL in the environment: expected ${BASE_URL_ALLOWED}, got ${describeValue(value)} (${problem}).`,
      { hint: 'Fix or unset PROMPTLOCK_BASE_URL; it overrides the baseUrl option.' },
    );
  }
  return value;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** How messages name the file: relative to where the user stands, package.json with its key. */
function describeConfigFile(filepath: string, cwd: string): string {
  const relative = path.relative(cwd, filepath);
  const shown = relative && !path.isAbsolute(relative) ? relative : filepath;
  return path.basename(filepath) === 'package.json' ? `${shown} ("promptlock" key)` : shown;
}
