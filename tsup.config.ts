import { readFileSync } from 'node:fs';
import { ts } from 'ts-morph';
import { defineConfig, type Options } from 'tsup';
import { writeConfigJsonSchema } from './scripts/config-json-schema.js';
import { extractRuntime } from './src/codegen/runtime-declarations.js';

/** The bundler plugin's entries (src/plugin/): promptlock/vite, promptlock/webpack, … */
const plugins = Object.fromEntries(['vite', 'webpack', 'rollup', 'esbuild', 'rspack'].map((name) => [name, `src/plugin/${name}.ts`]));

const main: Options = {
  entry: { index: 'src/index.ts', cli: 'src/cli/bin.ts', live: 'src/live/index.ts', ...plugins },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: { entry: { index: 'src/index.ts', live: 'src/live/index.ts', ...plugins } },
  sourcemap: true,
  // Not cleaned: several people build while others run the built CLI; CI starts from a clean clone.
  clean: false,
  splitting: true,
  shims: false,
  // templates/runtime.ts read by the TypeScript parser once, here, so `generate` never loads the
  // compiler (src/codegen/runtime-source.ts).
  define: { PROMPTLOCK_RUNTIME: JSON.stringify(extractRuntime(ts, readFileSync('templates/runtime.ts', 'utf8'))) },
  // promptlock/schema.json, from the zod config schema (scripts/config-json-schema.ts).
  onSuccess: () => writeConfigJsonSchema('schema.json'),
};

/**
 * promptlock/messages and promptlock/otel (src/integrations/): imported by apps, in browsers and
 * edge runtimes too, so built apart from the CLI: no Node banner, no chunk shared with it, nothing
 * imported (docs/architecture.md, "Layers").
 */
const appEntries: Options = {
  entry: { messages: 'src/integrations/messages.ts', otel: 'src/integrations/otel.ts' },
  format: ['esm'],
  target: 'es2022',
  platform: 'neutral',
  dts: true,
  sourcemap: true,
  clean: false,
  splitting: false,
};

export default defineConfig([main, appEntries]);
