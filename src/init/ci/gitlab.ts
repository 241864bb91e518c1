/** GitLab CI: `.gitlab/promptlock.yml` from `templates/ci/gitlab.yml`, included from `.gitlab-ci.yml` (docs/ci.md). */
import type { CiProviderSpec } from './provider.js';

export const gitlab: CiProviderSpec = {
  file: '.gitlab/promptlock.yml',
  values({ packageManager: pm }) {
    // The pinned node image ships Corepack, which provides pnpm and Yarn 2 and later.
    return { SETUP: pm.name === 'pnpm' || pm.berry ? '- corepack enable' : '' };
  },
  steps({ secret }, file) {
    return [
      `Include it from .gitlab-ci.yml: include: [{ local: ${file} }]`,
      `Add the CI/CD variables ${secret} and PROMPTLOCK_PUSH_TOKEN (a project access token with write_repository), both Protected and Masked (Settings → CI/CD → Variables); add PROMPTLOCK_BASE_URL too if the service is not the one your promptlock config names.`,
      'Add a pipeline schedule (Build → Pipeline schedules) on the default branch with the variable PROMPTLOCK_UPDATE=true.',
    ];
  },
};
