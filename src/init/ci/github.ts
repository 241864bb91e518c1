/**
 * GitHub Actions: `.github/workflows/prompts.yml` from `templates/ci/github.yml` (docs/ci.md).
 * Every action is pinned to a full commit SHA with its version in a comment, the form Dependabot
 * and Renovate update.
 */
import type { CiProviderSpec } from './provider.js';

/** pnpm itself, before setup-node (whose `cache: pnpm` runs it). */
const PNPM_ACTION = 'pnpm/action-setup@fe02b34f77f8bc703788d5817da081398fad5dd2 # v4.0.0';

/** pnpm when package.json names no version (`packageManager`); the action needs one. */
const PNPM_DEFAULT_MAJOR = '10';

/**
 * Yarn 2 and later run through Corepack, which Node.js no longer bundles from version 25 on;
 * a pinned release of it from npm.
 */
const COREPACK = 'npm install --global corepack@0.36.0 && corepack enable';

/** The repository setting without which the default token cannot open a pull request. */
const PR_SETTING = '"Allow GitHub Actions to create and approve pull requests" (Settings → Actions → General → Workflow permissions)';

export const github: CiProviderSpec = {
  file: '.github/workflows/prompts.yml',
  values({ packageManager: pm }) {
    const pnpm = [`- uses: ${PNPM_ACTION}`, ...(pm.pinned ? [] : ['  with:', `    version: ${PNPM_DEFAULT_MAJOR}`])];
    return {
      SETUP_BEFORE_NODE: pm.name === 'pnpm' ? pnpm.join('\n') : '',
      SETUP_AFTER_NODE: pm.berry ? `- name: Enable Corepack (Yarn 2 and later)\n  run: ${COREPACK}` : '',
      // setup-node finds Yarn 2's cache folder by running Yarn, which Corepack only provides later.
      CACHE: pm.berry ? '' : `cache: ${pm.name}`,
    };
  },
  steps({ secret, packageManager: pm }, file) {
    return [
      `Add the repository secret ${secret} (Settings → Secrets and variables → Actions) with the service's API key, and the secret PROMPTLOCK_BASE_URL if the service is not the one your promptlock config names.`,
      `Tick ${PR_SETTING}, so the update job can open its pull request.`,
      'GitHub starts no workflow for a pull request opened with the default token, so no check runs on the update pull request (the update job type-checks the app itself and lists the compile errors in it). For your own checks to run on it, add a secret PROMPTLOCK_PR_TOKEN: a fine-grained token with Contents and Pull requests read and write, used instead.',
      ...(pm.name === 'pnpm' && !pm.pinned
        ? [`pnpm ${PNPM_DEFAULT_MAJOR} is set up (package.json names no "packageManager"); set it in package.json to pin yours.`]
        : []),
      `Commit ${file}: pull requests are checked from now on, and the update job runs daily (or from the Actions tab).`,
    ];
  },
};
