import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', cli: 'src/cli/bin.ts', live: 'src/live/index.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: { entry: { index: 'src/index.ts', live: 'src/live/index.ts' } },
  sourcemap: true,
  // Not cleaned: several people build while others run the built CLI; CI starts from a clean clone.
  clean: false,
  splitting: true,
  shims: false,
});
