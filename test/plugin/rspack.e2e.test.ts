/**
 * `promptlock/rspack` with real Rspack 2, through its Node API: the cases every bundler passes
 * (bundler-cases.ts), the module generated on `beforeRun` / `watchRun`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { rspack } from '@rspack/core';
import promptlock from '../../src/plugin/rspack.js';
import { bundlerCases } from './bundler-cases.js';

function compiler(dir: string, mode: 'production' | 'development') {
  return rspack({
    context: dir,
    mode,
    entry: './src/main.js',
    output: { path: path.join(dir, 'dist'), filename: 'main.js' },
    devtool: false,
    infrastructureLogging: { level: 'none' },
    plugins: [promptlock()],
  });
}

const bundleOf = (dir: string) => readFile(path.join(dir, 'dist/main.js'), 'utf8').catch(() => undefined);

bundlerCases('promptlock/rspack', {
  recoversInWatch: true,
  build: (dir) =>
    new Promise((resolve, reject) => {
      const c = compiler(dir, 'production');
      c.run((error, stats) => {
        c.close(() => {
          if (error) reject(error);
          else if (stats?.hasErrors()) reject(new Error(stats.toString('errors-only')));
          else bundleOf(dir).then((text) => resolve(text ?? ''), reject);
        });
      });
    }),
  watch: async (dir) => {
    const c = compiler(dir, 'development');
    const watching = c.watch({ aggregateTimeout: 50 }, () => {});
    let closed: Promise<void> | undefined;
    return {
      bundle: () => bundleOf(dir),
      close: () => (closed ??= new Promise<void>((resolve) => (watching ? watching.close(() => resolve()) : resolve()))),
    };
  },
});
