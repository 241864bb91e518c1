/**
 * `promptlock init --ci <provider>`: the CI file that checks every pull request and, on a
 * schedule, opens one pull request with the prompts published since (docs/ci.md). The templates
 * ship in the package's `templates/ci/` folder; each provider is a row of `CI_PROVIDERS`.
 */
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { detectPackageManager, type PackageManager } from '../config/package-manager.js';
import { ConfigError, PromptlockError } from '../errors.js';
import { findInPackage } from '../util/find-in-package.js';
import { writeFileSafely } from '../util/write-file.js';
import { github } from './ci/github.js';
import { gitlab } from './ci/gitlab.js';
import type { CiProject, CiProviderSpec } from './ci/provider.js';

/** Every provider `init --ci` writes for: a new one is a file in src/init/ci/ and its template. */
export const CI_PROVIDERS = { github, gitlab } as const satisfies Record<string, CiProviderSpec>;

export type CiProvider = keyof typeof CI_PROVIDERS;

/** The repository secret (GitHub) or CI/CD variable (GitLab) the update job reads the key from. */
const CI_SECRET = 'PROMPTLOCK_API_KEY';

/** Daily, at a minute off the hour: scheduled jobs at :00 wait longest for a runner. */
const DAILY = '17 6 * * *';

export interface CiWorkflowOptions {
  dir: string;
  provider: CiProvider;
  /** Replace an existing file. */
  force: boolean;
  /** promptlock's files (lockfile, snapshots folder, module files), absolute: what the update job commits. */
  files: readonly string[];
}

export interface CiWorkflowResult {
  path: string;
  overwritten: boolean;
  packageManager: PackageManager;
  /** What the user still has to do, in words. */
  steps: string[];
}

/**
 * A path as one shell word in single quotes. A line break would end the YAML line, and `${{`
 * would be read by GitHub as an expression inside a `run:` script: such paths are refused.
 */
function shellWord(relative: string): string {
  if (/[\u0000-\u001f\u007f]/.test(relative) || relative.includes('${{')) {
    throw new ConfigError(`promptlock cannot name ${JSON.stringify(relative)} in a CI file: it holds a control character or "\${{".`, {
      hint: 'Rename the lockfile, snapshots or output path in the promptlock config.',
    });
  }
  return `'${relative.replaceAll("'", `'\\''`)}'`;
}

/**
 * The template with its placeholders filled. A placeholder alone on its line takes a block of
 * lines indented as it is (an empty block removes the line); any other is replaced in place.
 */
function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  const value = (name: string) => {
    const found = values[name];
    if (found === undefined) throw new PromptlockError(`The CI template has a placeholder __${name}__ without a value.`);
    return found;
  };
  return template
    .replace(/^([ \t]*)__([A-Z_]+)__\n/gm, (_line, indent: string, name: string) => {
      const block = value(name);
      return block === '' ? '' : `${block.replace(/^(?=.)/gm, indent)}\n`;
    })
    .replace(/__([A-Z_]+)__/g, (_m, name: string) => value(name));
}

async function readTemplate(provider: CiProvider): Promise<string> {
  const file = findInPackage(`templates/ci/${provider}.yml`, import.meta.url);
  if (!file) {
    throw new PromptlockError(`The CI template templates/ci/${provider}.yml is missing from the promptlock package.`, {
      hint: 'Reinstall promptlock.',
    });
  }
  return readFile(file, 'utf8');
}

/** `npm (package-lock.json)`, `Yarn 2+ (yarn.lock)`, `pnpm (no lockfile yet)`. */
function describePackageManager(pm: PackageManager): string {
  const name = pm.name === 'yarn' ? (pm.berry ? 'Yarn 2+' : 'Yarn 1') : pm.name;
  return `${name} (${pm.lockfile ?? 'no lockfile yet'})`;
}

/** Writes the provider's CI file for the project's package manager; refuses to replace one unless `force`. */
export async function writeCiWorkflow(options: CiWorkflowOptions): Promise<CiWorkflowResult> {
  const spec: CiProviderSpec = CI_PROVIDERS[options.provider];
  const packageManager = await detectPackageManager(options.dir);
  const addPaths = options.files.map((file) => shellWord(path.relative(options.dir, file).split(path.sep).join('/'))).join(' ');
  const project: CiProject = { packageManager, addPaths, secret: CI_SECRET };
  const text = fillTemplate(await readTemplate(options.provider), {
    SECRET: CI_SECRET,
    CRON: DAILY,
    PACKAGE_MANAGER: describePackageManager(packageManager),
    INSTALL: packageManager.install,
    INSTALL_WITHOUT_SCRIPTS: packageManager.installWithoutScripts,
    EXEC: packageManager.exec,
    ADD_PATHS: addPaths,
    ...spec.values(project),
  });

  const target = path.join(options.dir, spec.file);
  const overwritten = await lstat(target).then(
    () => true,
    () => false,
  );
  try {
    // Its folders made one by one, and nothing written through a link (a linked `.gitlab/`, a linked file).
    await writeFileSafely(target, text, { refusal: ConfigError, within: options.dir, exclusive: !options.force });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw new ConfigError(`${spec.file} already exists; promptlock init does not overwrite it.`, {
      hint: `Compare it with what promptlock writes, or run promptlock init --ci ${options.provider} --force to replace it.`,
    });
  }
  const steps = spec.steps(project, spec.file);
  if (!packageManager.lockfile) {
    steps.unshift(
      `Commit the project's lockfile (there is none yet): the CI file installs with \`${packageManager.install}\`, which needs one.`,
    );
  }
  return { path: target, overwritten, packageManager, steps };
}
