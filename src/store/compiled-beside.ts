/**
 * A JavaScript file compiled from the module and left beside it: a plain `tsc` with no `outDir`
 * writes `prompts.js` next to `prompts.ts`, and a bundler resolving `./generated/prompts.js` takes
 * that file instead of the module. Once the module changes, the app ships the old prompts without
 * a word (README, Quickstart: the brand-new app gets an `outDir`).
 */
import { lstat } from 'node:fs/promises';

/** The file a compiler writes for each TypeScript output. */
const COMPILED: Readonly<Record<string, string | undefined>> = { '.ts': '.js', '.mts': '.mjs', '.cts': '.cjs' };

/**
 * The compiled file beside the module `outputPath` when it is older than the module (compiled
 * before the module last changed), else undefined. One that is newer was compiled from the module
 * as it is, and is left alone.
 */
export async function staleCompiledModule(outputPath: string): Promise<string | undefined> {
  const extension = /\.[cm]?ts$/.exec(outputPath)?.[0];
  const compiled = extension && COMPILED[extension];
  if (!extension || !compiled) return undefined;
  const beside = `${outputPath.slice(0, -extension.length)}${compiled}`;
  const [module, file] = await Promise.all([lstat(outputPath).catch(() => undefined), lstat(beside).catch(() => undefined)]);
  return module?.isFile() && file?.isFile() && file.mtimeMs < module.mtimeMs ? beside : undefined;
}
