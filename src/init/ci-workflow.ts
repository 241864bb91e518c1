/**
 * `promptlock init --ci github|gitlab`: the CI file that checks every pull request and, on a
 * schedule, opens one pull request with the prompts published since (README, "Prompt updates as
 * pull requests"). The files ship in the package's `templates/ci/` folder.
 */
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, PromptlockError } from '../errors.js';
import { findInPackage } from '../util/find-in-package.js';

type CiProvider = 'github' | 'gitlab';

/** Where each provider's file goes, relative to the project. */
const CI_FILES: Readonly<Record<CiProvider, string>> = {
  github: '.github/workflows/prompts.yml',
  gitlab: '.gitlab/promptlock.yml',
};

/** The repository secret (GitHub) or CI/CD variable (GitLab) the update job reads the key from. */
const CI_SECRET = 'PROMPTLOCK_API_KEY';

/** Daily, at a minute off the hour: scheduled jobs at :00 wait longest for a runner. */
const DAILY = '17 6 * * *';

export interface CiWorkflowOptions {
  dir: string;
  provider: CiProvider;
  /** Replace an existing file. */
  force: boolean;
}

export interface CiWorkflowResult {
  path: string;
  overwritten: boolean;
  /** What the user still has to do, in words. */
  steps: string[];
}

async function template(provider: CiProvider): Promise<string> {
  const file = findInPackage(`templates/ci/${provider}.yml`, import.meta.url);
  if (!file) {
    throw new PromptlockError(`The CI template templates/ci/${provider}.yml is missing from the promptlock package.`, {
      hint: 'Reinstall promptlock.',
    });
  }
  return (await readFile(file, 'utf8')).replaceAll('__SECRET__', CI_SECRET).replaceAll('__CRON__', DAILY);
}

/** Writes the provider's CI file; refuses to replace one unless `force`. */
export async function writeCiWorkflow(options: CiWorkflowOptions): Promise<CiWorkflowResult> {
  const relative = CI_FILES[options.provider];
  const target = path.join(options.dir, relative);
  await mkdir(path.dirname(target), { recursive: true });
  const overwritten = await access(target).then(
    () => true,
    () => false,
  );
  try {
    await writeFile(target, await template(options.provider), { flag: options.force ? 'w' : 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw new ConfigError(`${relative} already exists; promptlock init does not overwrite it.`, {
      hint: `Compare it with what promptlock writes, or run promptlock init --ci ${options.provider} --force to replace it.`,
    });
  }
  const steps =
    options.provider === 'github'
      ? [
          `Add the repository secret ${CI_SECRET} (Settings → Secrets and variables → Actions) with the service's API key.`,
          `Commit ${relative}: pull requests are checked from now on, and the update job runs daily (or from the Actions tab).`,
        ]
      : [
          `Include it from .gitlab-ci.yml: include: [{ local: ${relative} }]`,
          `Add the masked CI/CD variables ${CI_SECRET} and PROMPTLOCK_PUSH_TOKEN (a project access token with write_repository).`,
          'Add a pipeline schedule (CI/CD → Schedules) with the variable PROMPTLOCK_UPDATE=true.',
        ];
  return { path: target, overwritten, steps };
}
