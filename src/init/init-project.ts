import { basename, join } from 'node:path';
import { ConfigError } from '../errors.js';
import { FILE_BYTES, readBounded } from '../util/read-bounded.js';
import { writeFileSafely } from '../util/write-file.js';
import { existingConfigFiles, STARTER_CONFIG_NAME, STARTER_JSON_CONFIG_NAME } from './config-files.js';
import { addEnvLocal, type GitignoreEdit } from './gitignore.js';
import { addPackageScripts, PROMPTLOCK_SCRIPTS, type ScriptChange } from './package-scripts.js';
import { readStarterConfig, STARTER_JSON_CONFIG } from './starter-config.js';

export interface InitOptions {
  /** The project folder: where prompts.config.ts is written and package.json is looked for. */
  dir: string;
  /** Edit package.json's scripts (true), or only report the scripts to add (false). */
  packageJson: boolean;
  /** Replace an existing starter config of the same format (never another config file). */
  force: boolean;
  /** `ts` writes prompts.config.ts; `json` writes prompts.config.json referencing promptlock/schema.json. @default 'ts' */
  format?: 'ts' | 'json';
}

export interface InitResult {
  configPath: string;
  /** True when an existing starter config was replaced (`force`). */
  overwritten: boolean;
  /** Set when package.json was edited (or already had the scripts). */
  packageJson: { path: string; changed: boolean; scripts: ScriptChange[] } | undefined;
  /** Set when package.json was not touched: the scripts the user should add by hand. */
  scriptsToAdd: Readonly<Record<string, string>> | undefined;
  /** What became of `.env.local` in the project's .gitignore. */
  gitignore: { path: string; action: GitignoreEdit['action'] };
  /**
   * True when package.json does not say `"type": "module"` (as `npm init -y` writes it): the
   * generated module is an ES module, which TypeScript's `nodenext` compiles only in one.
   */
  commonJs: boolean;
}

/**
 * A file of the project init reads, and writes back when `links` is 'refuse': a link there is
 * refused before anything is written (a checkout may hold one, to any file of the user's).
 */
async function readProjectText(file: string, links: 'follow' | 'refuse'): Promise<string | undefined> {
  const bytes = await readBounded(file, {
    what: basename(file),
    maxBytes: FILE_BYTES.config,
    links,
    fix: `Replace ${file} with a regular file (or remove it), and run promptlock init again.`,
    refusal: ConfigError,
  });
  return bytes?.toString('utf8');
}

/** package.json as an object, or undefined when it is missing or not a JSON object. */
function parsePackage(packageText: string | undefined): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = packageText === undefined ? undefined : JSON.parse(packageText);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Stops init when a config exists, naming it; `force` only ever replaces the file init writes. */
function refuseExisting(dir: string, existing: string[], force: boolean, starter: string): void {
  const others = existing.filter((path) => basename(path) !== starter);
  if (existing.length === 0 || (force && others.length === 0)) return;
  const names = existing.map((path) => basename(path)).join(', ');
  throw new ConfigError(`${names} already exists in ${dir}; promptlock init does not overwrite it.`, {
    hint:
      others.length === 0
        ? `Edit it, or run promptlock init --force to replace it with the starter config.`
        : `Edit it, or remove it first: --force only replaces ${starter}.`,
  });
}

/**
 * Writes the starter config (prompts.config.ts, or prompts.config.json) and adds the scripts a
 * project needs to its package.json. Checks everything before writing, so a refused or failed
 * init changes no file.
 */
export async function initProject(options: InitOptions): Promise<InitResult> {
  const { dir } = options;
  const packagePath = join(dir, 'package.json');
  // Written below only with `packageJson`: then it may not be a link.
  const packageText = await readProjectText(packagePath, options.packageJson ? 'refuse' : 'follow');
  const existing = await existingConfigFiles(dir);
  const pkg = parsePackage(packageText);
  const json = options.format === 'json';
  const starter = json ? STARTER_JSON_CONFIG_NAME : STARTER_CONFIG_NAME;
  refuseExisting(dir, existing, options.force, starter);

  const scriptsEdit = options.packageJson && packageText !== undefined ? addPackageScripts(packageText, packagePath) : undefined;
  const gitignorePath = join(dir, '.gitignore');
  const gitignore = addEnvLocal(await readProjectText(gitignorePath, 'refuse'));
  const configPath = join(dir, starter);
  // Every write through the one writer: never through a link (src/util/write-file.ts).
  const write = (file: string, text: string, exclusive = false) =>
    writeFileSafely(file, text, { refusal: ConfigError, within: dir, exclusive });
  try {
    // Exclusive: the no-overwrite promise holds even against a file created since the check.
    await write(configPath, json ? STARTER_JSON_CONFIG : await readStarterConfig(), !options.force);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') refuseExisting(dir, [configPath], false, starter);
    throw error;
  }
  if (scriptsEdit?.changed) await write(packagePath, scriptsEdit.text);
  if (gitignore.text !== undefined) await write(gitignorePath, gitignore.text);

  return {
    configPath,
    overwritten: existing.length > 0,
    packageJson: scriptsEdit && { path: packagePath, changed: scriptsEdit.changed, scripts: scriptsEdit.scripts },
    scriptsToAdd: scriptsEdit ? undefined : PROMPTLOCK_SCRIPTS,
    gitignore: { path: gitignorePath, action: gitignore.action },
    commonJs: pkg !== undefined && pkg.type !== 'module',
  };
}
