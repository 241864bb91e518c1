import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A temporary user cache folder for the whole run (test/helpers/global-setup.ts).
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores here: end-to-end files spawn servers and CLIs, so cap parallel files.
    maxWorkers: 2,
  },
});
