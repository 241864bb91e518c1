/**
 * `promptlock/rollup` with real Rollup 4, through its Node API: the cases every bundler passes
 * (bundler-cases.ts), the module generated in `buildStart`, which Rollup awaits before it reads the
 * entries; in watch mode the plugin watches the store and Rollup's watcher sees the rewritten module.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { rollup, watch } from 'rollup';
import promptlock from '../../src/plugin/rollup.js';
import { bundlerCases } from './bundler-cases.js';

const options = (dir: string) => ({
  input: path.join(dir, 'src/main.js'),
  // Rollup has no root of its own: the config is named (the default search starts at the cwd).
  plugins: [promptlock({ config: path.join(dir, 'prompts.config.json') })],
  onwarn: () => {},
});

const bundleOf = (dir: string) => readFile(path.join(dir, 'dist/main.js'), 'utf8').catch(() => undefined);

bundlerCases('promptlock/rollup', {
  build: async (dir) => {
    const bundle = await rollup(options(dir));
    try {
      const { output } = await bundle.generate({ format: 'es' });
      return output.map((chunk) => (chunk.type === 'chunk' ? chunk.code : '')).join('\n');
    } finally {
      await bundle.close();
    }
  },
  watch: async (dir) => {
    const watcher = watch({ ...options(dir), output: { file: path.join(dir, 'dist/main.js'), format: 'es' }, watch: { buildDelay: 50 } });
    watcher.on('event', (event) => {
      if ('result' in event && event.result) void event.result.close();
    });
    return { bundle: () => bundleOf(dir), close: () => watcher.close() };
  },
});
