/**
 * `generate`: lockfile + snapshots → the module on disk, written only when its content changed.
 * The store (src/store/) does every read and write; codegen (src/codegen/) only turns the locked
 * prompts into the module's text. `sync` builds the module itself, inside its commit; `check` uses
 * `renderModuleFromStore`.
 */

import type { CompiledFunctions } from '../codegen/generate-module.js';
import { checkSeal, inputsDigest, SEAL_HEAD_BYTES } from '../codegen/inputs-digest.js';
import { type ModuleOptions, moduleFormat, optionsKey } from '../codegen/module-format.js';
import { runtimeSource } from '../codegen/runtime-source.js';
import type { ResolvedConfig } from '../config/types.js';
import { PromptlockError } from '../errors.js';
import { scanModuleFile, writeIfChanged } from '../store/module-file.js';
import { readLockfileBytes } from '../store/read-lockfile-text.js';
import type { SnapshotCache, StoreLocation } from '../store/read-store.js';
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

export interface GenerateOptions extends StoreLocation, ModuleOptions {
  outputPath: string;
  /** The project folder: the module is never written outside it, nor through a link leading out of it. */
  rootDir: string;
  /**
   * Rebuild even when the module is up to date. Never needed: a module whose text or inputs differ
   * is always rebuilt (kept as `generate --force` for scripts that use it).
   */
  force?: boolean;
  /** Reuse of the previous generation's work (watch). */
  cache?: GenerateCache;
}

/**
 * What `generate` needs from a resolved config: every caller (CLI, library, plugin, watch) starts
 * from here, so an option added to the config reaches all of them.
 */
export function generateOptionsFor(
  config: Pick<ResolvedConfig, 'lockfilePath' | 'snapshotsDir' | 'outputPath' | 'rootDir' | 'omit' | 'limits'>,
): GenerateOptions {
  return {
    lockfilePath: config.lockfilePath,
    snapshotsDir: config.snapshotsDir,
    outputPath: config.outputPath,
    rootDir: config.rootDir,
    omit: config.omit,
    limits: config.limits,
  };
}

export interface GenerateResult {
  outputPath: string;
  /** False when the module on disk was already up to date. */
  written: boolean;
  /** Number of prompts in the module. */
  count: number;
  /**
   * Prompts whose snapshot no longer matches its lockfile integrity (edited by hand): the module
   * was built from the snapshot as it is, and `check` reports it. Empty on the up-to-date path,
   * which reads only the lockfile.
   */
  mismatched: string[];
}

/** The module text for the store, without writing it (what `check` compares with the file). */
export async function renderModuleFromStore(
  options: StoreLocation & { file?: 'ts' | 'js' | 'dts'; omit?: ModuleOptions['omit'] },
): Promise<string> {
  const [{ readLockedPrompts }, { generateModule }] = await Promise.all([
    import('../store/read-store.js'),
    import('../codegen/generate-module.js'),
  ]);
  return generateModule(await readLockedPrompts(options), options);
}

/**
 * Builds the module from the lockfile and snapshots and writes it when it changed. Throws
 * `LockfileError` when the lockfile or a snapshot is missing or damaged (naming which), and
 * `TemplateError` when a prompt's variables have conflicting types.
 */
export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const { outputPath } = options;
  const lockfileBytes = await readLockfileBytes(options.lockfilePath);
  if (!options.force) {
    // Up to date only when every file of the module (a .js output's .d.ts too) is exactly what was
    // generated (its seal) from these inputs.
    const { declarationPath } = moduleFormat(outputPath);
    const digest = inputsDigest(lockfileBytes, runtimeSource() + optionsKey(options));
    // The banner alone tells a module generated from other inputs; only the rest of one generated
    // from these is read (in pieces) to check its seal.
    const counts = await Promise.all(
      [outputPath, declarationPath]
        .filter((file) => file !== undefined)
        .map(async (file) => {
          const seal = await scanModuleFile(file, SEAL_HEAD_BYTES, (head) => {
            const found = checkSeal(head);
            return found?.digest === digest ? found : undefined;
          });
          return seal?.matches() ? seal.count : undefined;
        }),
    );
    if (counts.every((count) => count !== undefined)) {
      return { outputPath, written: false, count: counts[0]!, mismatched: [] };
    }
  }
  const lockfileText = lockfileBytes.toString('utf8');
  // Loaded only now: the schema checks and the emitter are not needed when nothing changed.
  const [{ readLockedPrompts }, { generateModuleParts }] = await Promise.all([
    import('../store/read-store.js'),
    import('../codegen/generate-module.js'),
  ]);
  const mismatched: string[] = [];
  const prompts = await readLockedPrompts(options, {
    lockfileText,
    mismatched,
    ...(options.cache ? { cache: options.cache.snapshots } : {}),
  });
  const files = generateModuleParts(prompts, { outputPath, omit: options.omit, memo: options.cache?.functions });
  let written = false;
  try {
    for (const file of files) written = (await writeIfChanged(file.path, file.parts, options.rootDir)) || written;
  } catch (error) {
    if (error instanceof PromptlockError) throw error; // refused by the path guard, which says why
    throw new PromptlockError(`Cannot write the module to ${displayPath(outputPath)}: ${(error as Error).message}`, {
      hint: 'Check the "output" option of the config and that its folder is writable.',
      cause: error,
    });
  }
  return { outputPath, written, count: prompts.length, mismatched };
}
