/**
 * `generate`: lockfile + snapshots → the module on disk, written only when its content changed.
 * `sync` calls this after it has committed the store; `check` uses `renderModuleFromStore`.
 */
import { readFile } from 'node:fs/promises';
import { PromptlockError } from '../errors.js';
import { displayPath } from './display-path.js';
import { inputsDigest, readSealedInputs } from './inputs-digest.js';
import { moduleFormat, optionsKey, type ModuleOptions } from './module-format.js';
import { readLockfileText } from './read-lockfile-text.js';
import type { StoreLocation } from './read-store.js';
import { runtimeSource } from './runtime-source.js';
import { writeIfChanged } from './write-if-changed.js';

export interface GenerateOptions extends StoreLocation, ModuleOptions {
  outputPath: string;
  /** The project folder: the module is never written outside it, nor through a link leading out of it. */
  rootDir: string;
  /**
   * Rebuild even when the module is up to date. Never needed: a module whose text or inputs differ
   * is always rebuilt (kept as `generate --force` for scripts that use it).
   */
  force?: boolean;
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

/** The module on disk, or undefined when it cannot be read (missing, a folder: writing it says what is wrong). */
async function readModule(file: string): Promise<Buffer | undefined> {
  return readFile(file).catch(() => undefined);
}

/** The module text for the store, without writing it (what `check` compares with the file). */
export async function renderModuleFromStore(options: StoreLocation & { file?: 'ts' | 'js' | 'dts'; omit?: ModuleOptions['omit'] }): Promise<string> {
  const [{ readStore }, { generateModule }] = await Promise.all([
    import('./read-store.js'),
    import('./generate-module.js'),
  ]);
  return generateModule(await readStore(options), options);
}

/**
 * Builds the module from the lockfile and snapshots and writes it when it changed. Throws
 * `LockfileError` when the lockfile or a snapshot is missing or damaged (naming which), and
 * `TemplateError` when a prompt's variables have conflicting types.
 */
export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const { outputPath } = options;
  const lockfileText = await readLockfileText(options.lockfilePath);
  if (!options.force) {
    // Up to date only when every file of the module (a .js output's .d.ts too) is exactly what was
    // generated (its seal) from these inputs.
    const { declarationPath } = moduleFormat(outputPath);
    const digest = inputsDigest(lockfileText, runtimeSource() + optionsKey(options));
    const recorded = await Promise.all(
      [outputPath, declarationPath].filter((file) => file !== undefined).map(async (file) => readSealedInputs((await readModule(file)) ?? Buffer.alloc(0))),
    );
    if (recorded.every((line) => line?.digest === digest)) {
      return { outputPath, written: false, count: recorded[0]!.count, mismatched: [] };
    }
  }
  // Loaded only now: the schema checks and the emitter are not needed when nothing changed.
  const [{ readStore }, { generateModuleFiles }] = await Promise.all([
    import('./read-store.js'),
    import('./generate-module.js'),
  ]);
  const mismatched: string[] = [];
  const prompts = await readStore(options, lockfileText, mismatched);
  const files = generateModuleFiles(prompts, options);
  let written = false;
  try {
    for (const file of files) written = (await writeIfChanged(file.path, file.content, options.rootDir)) || written;
  } catch (error) {
    if (error instanceof PromptlockError) throw error; // refused by the path guard, which says why
    throw new PromptlockError(`Cannot write the module to ${displayPath(outputPath)}: ${(error as Error).message}`, {
      hint: 'Check the "output" option of the config and that its folder is writable.',
      cause: error,
    });
  }
  return { outputPath, written, count: prompts.length, mismatched };
}
