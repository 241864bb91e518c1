/**
 * webpack and Rspack share one Node API: the bundler cases (bundler-cases.ts) run through it with
 * the same options for both, the module generated on `beforeRun` / `watchRun`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { bundlerCases } from './bundler-cases.js';

/** The part of a webpack or Rspack compiler the cases use. */
export interface Compiler {
  run(callback: (error: Error | null, stats?: { hasErrors(): boolean; toString(preset: string): string }) => void): void;
  close(callback: () => void): void;
  watch(options: { aggregateTimeout: number }, handler: () => void): { close(callback: () => void): void } | undefined;
}

export interface CompilerOptions {
  context: string;
  mode: 'production' | 'development';
  entry: string;
  output: { path: string; filename: string };
  devtool: false;
  infrastructureLogging: { level: 'none' };
  plugins: unknown[];
}

export function webpackLikeCases(name: string, create: (options: CompilerOptions) => Compiler, plugin: () => unknown): void {
  const compiler = (dir: string, mode: CompilerOptions['mode']) =>
    create({
      context: dir,
      mode,
      entry: './src/main.js',
      output: { path: path.join(dir, 'dist'), filename: 'main.js' },
      devtool: false,
      infrastructureLogging: { level: 'none' },
      plugins: [plugin()],
    });
  const bundleOf = (dir: string) => readFile(path.join(dir, 'dist/main.js'), 'utf8').catch(() => undefined);
  bundlerCases(name, {
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
}
