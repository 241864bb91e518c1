import { defineConfig } from 'vitest/config';

// Two projects, one run: `npm test` runs both, each file once. `vitest run --project unit` is the
// quick loop; `e2e` holds the files that run the built CLI, a bundler or servers in child
// processes (named `*.e2e.test.ts`).
const E2E = 'test/**/*.e2e.test.ts';

export default defineConfig({
  test: {
    // A temporary user cache folder for the whole run (test/helpers/global-setup.ts).
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Test files share their worker's module cache: each file re-importing the source and its
    // dependencies cost a fifth of the run (82 s → 17 s of imports for the unit files). Tests keep
    // no state in modules: servers, folders and watchers are made and stopped per file.
    isolate: false,
    // Two cores here: end-to-end files spawn servers and CLIs, so cap parallel files.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [E2E] } },
      { extends: true, test: { name: 'e2e', include: [E2E] } },
    ],
  },
});
