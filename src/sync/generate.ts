/**
 * `generate`: lockfile + snapshots → the module on disk. Read the lockfile and every snapshot it
 * names, verify each against its integrity, emit the module, write only the files whose text
 * changed. There is no up-to-date shortcut: an edited or broken snapshot and a hand-edited module
 * are seen because everything is read every time (docs/performance.md, "How it is shaped"). The
 * store (src/store/) does every read and write; codegen (src/codegen/) only turns the locked
 * prompts into the module's text. `sync` builds the module itself, inside its commit; `check`
 * uses `renderModuleFromStore`.
 */

import path from 'node:path';
import { type CompiledFunctions, generateModule, generateModuleFiles } from '../codegen/generate-module.js';
import type { ModuleOptions } from '../codegen/module-format.js';
import type { ResolvedConfig } from '../config/types.js';
import { PromptlockError } from '../errors.js';
import { writeIfChanged } from '../store/module-file.js';
import { type LockedPrompt, readLockedPrompts, type SnapshotCache, type StoreLocation } from '../store/read-store.js';
import { snapshotIntegrity } from '../store/snapshot-format.js';
import { displayPath } from '../util/display-path.js';

/**
 * What a long-running process (`watch`) keeps from one generation to the next, so regenerating
 * after one edit decodes and compiles one prompt, not all of them. Owned by the caller and passed
 * to each `generate`; never module state.
 */
export interface GenerateCache {
  snapshots: SnapshotCache;
  functions: CompiledFunctions;
}

export function createGenerateCache(): GenerateCache {
  return { snapshots: { previous: new Map() }, functions: new WeakMap() };
}

export interface GenerateRunOptions extends StoreLocation, ModuleOptions {
  outputPath: string;
  /** The project folder: the module is never written outside it, nor through a link leading out of it. */
  rootDir: string;
  /** Reuse of the previous generation's work (watch). */
  cache?: GenerateCache;
}

/**
 * What `generate` needs from a resolved config: every caller (CLI, library, plugin, watch) starts
 * from here, so an option added to the config reaches all of them.
 */
export function generateOptionsFor(
  config: Pick<ResolvedConfig, 'lockfilePath' | 'snapshotsDir' | 'outputPath' | 'rootDir' | 'omit' | 'limits'>,
): GenerateRunOptions {
  return {
    lockfilePath: config.lockfilePath,
    snapshotsDir: config.snapshotsDir,
    outputPath: config.outputPath,
    rootDir: config.rootDir,
    omit: config.omit,
    limits: config.limits,
  };
}

/** The warning for each name of `GenerateResult.mismatched`, as generate, watch and the bundler plugin print it. */
export function mismatchWarning(name: string): string {
  return `the snapshot of ${name} does not match the lockfile (edited by hand?): the module was built from it as it is. Run \`promptlock sync --frozen\` to restore the locked version (or restore it from git); \`promptlock check\` fails until then.`;
}

/**
 * The warning for a compiled `.js` older than the module beside it (src/store/compiled-beside.ts),
 * as generate, check and the bundler plugin print it; paths relative to the project.
 */
function staleCompiledWarning(compiled: string, module: string, rootDir: string): string {
  const shown = (file: string) => path.relative(rootDir, file).split(path.sep).join('/');
  return `${shown(compiled)} is older than the module ${shown(module)} beside it (compiled before the module changed?): a bundler that imports ${JSON.stringify(`./${path.basename(compiled)}`)} takes it instead, with the old prompts. Delete it, and set "outDir" (or "noEmit") in tsconfig.json so that \`tsc\` writes no JavaScript beside the module.`;
}

export interface GenerateResult {
  outputPath: string;
  /** False when the module on disk already held exactly this text. */
  written: boolean;
  /** Number of prompts in the module. */
  count: number;
  /**
   * Prompts whose snapshot no longer matches its lockfile integrity (edited by hand): the module
   * was built from the snapshot as it is, and `check` reports it.
   */
  mismatched: string[];
}

/** The module text for the store, without writing it (what `check` compares with the file). */
export async function renderModuleFromStore(
  options: StoreLocation & { file?: 'ts' | 'js' | 'dts'; omit?: ModuleOptions['omit'] },
): Promise<string> {
  return generateModule(await readLockedPrompts(options), options);
}

/**
 * Builds the module from the lockfile and snapshots and writes each of its files whose text
 * changed. Throws `LockfileError` when the lockfile or a snapshot is missing or damaged (naming
 * which), and `TemplateError` when a prompt's variables have conflicting types. A snapshot edited
 * by hand is built as it is, and named in `mismatched`.
 */
export async function generate(options: GenerateRunOptions): Promise<GenerateResult> {
  const { outputPath } = options;
  const mismatched: string[] = [];
  const prompts: LockedPrompt[] = await readLockedPrompts(options, {
    mismatched,
    ...(options.cache ? { cache: options.cache.snapshots } : {}),
  });
  // A snapshot edited by hand is built with its own integrity, so the function's provenance never
  // claims the reviewed text for it (docs/traces.md).
  const edited = new Set(mismatched);
  const built =
    edited.size === 0
      ? prompts
      : prompts.map((item) =>
          edited.has(item.name) ? { ...item, entry: { ...item.entry, integrity: snapshotIntegrity(item.prompt) } } : item,
        );
  const files = generateModuleFiles(built, { outputPath, omit: options.omit, memo: options.cache?.functions });
  let written = false;
  try {
    for (const file of files) written = (await writeIfChanged(file.path, file.content, options.rootDir)) || written;
  } catch (error) {
    if (error instanceof PromptlockError) throw error; // refused by the path guard, which says why
    throw new PromptlockError(`Cannot write the module to ${displayPath(outputPath, options.rootDir)}: ${(error as Error).message}`, {
      hint: 'Check the "output" option of the config and that its folder is writable.',
      cause: error,
    });
  }
  return { outputPath, written, count: prompts.length, mismatched };
}

/** Before the first sync: the module with no prompts (it type-checks, `prompts` is empty). */
export async function generateEmpty(config: ResolvedConfig): Promise<GenerateResult> {
  const { outputPath, omit, rootDir } = config;
  let written = false;
  for (const file of generateModuleFiles([], { outputPath, omit }))
    written = (await writeIfChanged(file.path, file.content, rootDir)) || written;
  return { outputPath, written, count: 0, mismatched: [] };
}

/** The warning for a compiled `.js` older than the module beside it, which a bundler would take instead (generate, check, the plugin). */
export async function staleCompiledNotice(config: ResolvedConfig): Promise<string | undefined> {
  const { staleCompiledModule } = await import('../store/compiled-beside.js');
  const stale = await staleCompiledModule(config.outputPath);
  return stale ? staleCompiledWarning(stale, config.outputPath, config.rootDir) : undefined;
}
