import path from 'node:path';
import { ConfigError } from '../errors.js';
import { apiKeyVariable, maskKeysIn } from '../secrets.js';
import { WORK_DIR_NAME } from '../store/work-dir.js';
import { describeValue } from '../util/describe-value.js';
import { BASE_URL_ALLOWED, baseUrlProblem } from './base-url.js';
import { ConfigConflictError } from './config-conflict.js';
import type { ConfigConflictResolution } from './edit/resolve-conflict.js';
import { type ProjectEnv, readEnv } from './env-files.js';
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
  /**
   * Set by `sync`: a config with git conflict markers inside its prompts list is resolved (both
   * sides' entries kept, src/config/edit/resolve-conflict.ts) and this is told what was done.
   * Without it such a config is a ConfigConflictError.
   */
  onConflictResolved?: (resolution: ConfigConflictResolution) => void;
}

/**
 * Finds, loads and validates the config, applies defaults and the environment, and resolves
 * paths against the config file's folder. Throws ConfigError (exit code 2) for anything wrong.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<ResolvedConfig> {
  const cwd = path.resolve(options.cwd);
  const file = await readResolvingConflict(cwd, options);
  if (!file) {
    // Syncing "every prompt" into wherever one happens to stand is never what was meant.
    throw new ConfigError(`no prompts.config.* found from ${cwd}; run \`promptlock init\`.`, {
      hint: 'Run promptlock from the project folder (or pass --config <file>), or create the config with `promptlock init`.',
    });
  }
  const where = describeConfigFile(file.filepath, cwd);
  rejectApiKey(file.config, where);
  const parsed = parseUserConfig(file.config, where);
  const rootDir = path.dirname(file.filepath);
  const projectEnv = readEnv(rootDir, options.env ?? process.env);
  const found = apiKeyVariable(projectEnv.env);

  const snapshotsDir = path.resolve(rootDir, parsed.snapshots);
  if (snapshotsDir === rootDir || rootDir.startsWith(snapshotsDir + path.sep)) {
    throw new ConfigError(
      `Invalid value for option "snapshots" in ${where}: ${describeValue(parsed.snapshots, maskKeysIn)} is the project folder; snapshots need a folder of their own.`,
      { hint: 'Use a dedicated folder such as "prompts": promptlock removes the snapshots it no longer needs from it.' },
    );
  }
  const lockfilePath = path.resolve(rootDir, parsed.lockfile);
  const outputPath = path.resolve(rootDir, parsed.output);
  requireInsideProject('snapshots', parsed.snapshots, snapshotsDir, rootDir, where);
  requireInsideProject('lockfile', parsed.lockfile, lockfilePath, rootDir, where);
  requireInsideProject('output', parsed.output, outputPath, rootDir, where);
  return {
    configPath: file.filepath,
    rootDir,
    baseUrl: trimSlash(baseUrlFromEnv(projectEnv) ?? parsed.baseUrl),
    prompts: parsed.prompts,
    workspace: parsed.workspace,
    snapshotsDir,
    lockfilePath,
    outputPath,
    omit: parsed.omit,
    concurrency: parsed.concurrency,
    watchInterval: parsed.watchInterval,
    contextFiles: parsed.contextFiles,
    timeout: parsed.timeout,
    limits: parsed.limits,
    placeholders: parsed.placeholders,
    apiKey: found?.key,
    ...(found ? { apiKeySource: `${found.variable} in ${projectEnv.sourceOf(found.variable)}` } : {}),
  };
}

async function readResolvingConflict(cwd: string, options: LoadConfigOptions) {
  try {
    return await readConfigFile(cwd, options.configPath);
  } catch (error) {
    if (!(error instanceof ConfigConflictError) || !options.onConflictResolved) throw error;
    const { resolveConfigConflict } = await import('./edit/resolve-conflict.js');
    options.onConflictResolved(await resolveConfigConflict(error.filepath));
    return readConfigFile(cwd, error.filepath);
  }
}

/**
 * promptlock writes (and prunes) these paths: each must lie inside the project folder, the folder
 * of the config file, and outside promptlock's own `.promptlock/`. `"/"` or `"../elsewhere"` would
 * let a sync write, and a prune delete, anywhere on the disk.
 */
function requireInsideProject(option: string, value: string, resolved: string, rootDir: string, where: string): void {
  const relative = path.relative(rootDir, resolved);
  const outside = relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  const own = relative === WORK_DIR_NAME || relative.startsWith(`${WORK_DIR_NAME}${path.sep}`);
  if (!outside && !own) return;
  throw new ConfigError(
    `Invalid value for option "${option}" in ${where}: ${describeValue(value, maskKeysIn)} ${
      own
        ? `is inside promptlock's own ${WORK_DIR_NAME} folder`
        : relative === ''
          ? 'is the project folder itself'
          : `is outside the project folder ${rootDir}`
    }.`,
    {
      hint: `Use a path inside the project (relative to ${rootDir}), such as ${option === 'snapshots' ? '"prompts"' : option === 'lockfile' ? '"prompts.lock.json"' : '"src/generated/prompts.ts"'}.`,
    },
  );
}

function baseUrlFromEnv({ env, sourceOf }: ProjectEnv): string | undefined {
  const value = env.PROMPTLOCK_BASE_URL?.trim();
  if (!value) return undefined;
  const problem = baseUrlProblem(value);
  if (problem) {
    throw new ConfigError(
      `Invalid value for PROMPTLOCK_BASE_URL in ${sourceOf('PROMPTLOCK_BASE_URL')}: expected ${BASE_URL_ALLOWED}, got ${describeValue(value, maskKeysIn)} (${problem}).`,
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
