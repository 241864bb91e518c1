/**
 * `generate`: lockfile + snapshots → the module on disk, written only when its content changed.
 * The store (src/store/) does every read and write; codegen (src/codegen/) only turns the locked
 * prompts into the module's text. `sync` builds the module itself, inside its commit; `check` uses
 * `renderModuleFromStore`.
 */

import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CompiledFunctions } from '../codegen/generate-module.js';
import { CODEGEN_REVISION, inputsDigest, readSeal } from '../codegen/inputs-digest.js';
import { type ModuleOptions, moduleFormat, optionsKey } from '../codegen/module-format.js';
import { runtimeSource } from '../codegen/runtime-source.js';
import type { ResolvedConfig } from '../config/types.js';
import { PromptlockError } from '../errors.js';
import { parsePackageName } from '../package-name.js';
import {
  digestOfStamps,
  type FileStamp,
  lockfileNames,
  recordStamp,
  stampRecords,
  stampsDigest,
  writeIfChanged,
} from '../store/module-file.js';
import { readLockfileBytes } from '../store/read-lockfile-text.js';
import type { LockedPrompt, SnapshotCache, StoreLocation } from '../store/read-store.js';
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
  /**
   * Rebuild even when the module is up to date. Never needed: a module whose text or inputs
   * (lockfile, snapshots) differ is always rebuilt (kept as `generate --force` for scripts that use it).
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
  return `the snapshot of ${name} does not match the lockfile (edited by hand?): the module was built from it as it is. Run \`promptlock sync\` to restore it; \`promptlock check\` fails until then.`;
}

export interface GenerateResult {
  outputPath: string;
  /** False when the module on disk was already up to date. */
  written: boolean;
  /** Number of prompts in the module. */
  count: number;
  /**
   * Prompts whose snapshot no longer matches its lockfile integrity (edited by hand): the module
   * was built from the snapshot as it is, and `check` reports it. Empty when up to date: the
   * up-to-date check finds every snapshot as locked.
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
 * The snapshot files of `names` (as `snapshotPath` names them, joined by hand: `path.join`
 * normalises every path, which the no-op pays for each snapshot), or undefined when one is not a
 * package name without selector (a lockfile not as sync writes it).
 */
function snapshotFiles(snapshotsDir: string, names: readonly string[]): string[] | undefined {
  const files: string[] = [];
  const dir = path.resolve(snapshotsDir) + path.sep;
  for (const name of names) {
    const parsed = parsePackageName(name);
    if (!parsed || parsed.selector !== undefined) return undefined;
    files.push(`${dir}${parsed.workspace}${path.sep}${parsed.package}.json`);
  }
  return files;
}

/** True when every snapshot's bytes are exactly what its lockfile entry's integrity pins. */
async function snapshotsMatchLock(lockfileBytes: Buffer, names: readonly string[], files: readonly string[]): Promise<boolean> {
  let prompts: Record<string, { integrity?: unknown } | undefined>;
  try {
    prompts = (JSON.parse(lockfileBytes.toString('utf8')) as { prompts: typeof prompts }).prompts;
  } catch {
    return false;
  }
  const { integrityOf } = await import('../store/integrity.js');
  return names.every((name, i) => {
    const bytes = readIfPresent(files[i]!);
    return bytes !== undefined && integrityOf(bytes) === prompts[name]?.integrity;
  });
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    // Synchronous on purpose, as in read-store.ts: thousands of small reads.
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** True when nothing is at `file` (an unreadable path counts as there: its check says why). */
function isMissing(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}

/** The number of prompts when every file of the module is exactly what was generated (its seal) from these inputs. */
async function moduleSealed(moduleFiles: readonly string[], lockfileBytes: Buffer, inputsKey: string): Promise<number | undefined> {
  const digest = inputsDigest(lockfileBytes, inputsKey);
  const counts = await Promise.all(
    moduleFiles.map(async (file) => {
      const seal = readSeal((await readFile(file).catch(() => undefined)) ?? Buffer.alloc(0));
      return seal?.digest === digest ? seal.count : undefined;
    }),
  );
  return counts.every((count) => count !== undefined) ? counts[0] : undefined;
}

/**
 * Builds the module from the lockfile and snapshots and writes it when it changed. Throws
 * `LockfileError` when the lockfile or a snapshot is missing or damaged (naming which), and
 * `TemplateError` when a prompt's variables have conflicting types.
 *
 * Up to date, without reading a snapshot, when the stamps of the lockfile, every snapshot it names
 * and the module are those of the last store found up to date (store/module-file.ts). Otherwise the
 * module's seal and each snapshot's integrity are checked (no decoding, no code generation), and
 * only a store that fails those is built again: a snapshot edited by hand is built as it is
 * (`mismatched`), a broken one fails naming its file.
 */
export async function generate(options: GenerateRunOptions): Promise<GenerateResult> {
  const { outputPath, rootDir } = options;
  const { declarationPath } = moduleFormat(outputPath);
  const moduleFiles = declarationPath === undefined ? [outputPath] : [outputPath, declarationPath];
  const inputsKey = runtimeSource() + optionsKey(options);
  // The generator's revision too: a record an older promptlock wrote must not pass for this one's
  // module, which it never saw (the seal's digest covers the revision already).
  const recordKey = `promptlock codegen ${CODEGEN_REVISION}\n${inputsKey}`;
  // Every stamp is taken before the file's content is read: a file changed after its stamp was
  // taken has a new one next time, and is verified again.
  const keyed = stampsDigest(`${recordKey}\n${options.lockfilePath}\n${options.snapshotsDir}\n${moduleFiles.join('\n')}`, [
    options.lockfilePath,
  ]);
  const lockfileBytes = await readLockfileBytes(options.lockfilePath);
  const names = lockfileNames(lockfileBytes);
  const snapshots = snapshotFiles(options.snapshotsDir, names);
  // A module that is not there (a fresh clone) cannot be up to date: no check, and each snapshot's
  // stamp is taken as it is read instead of by a stat of its own.
  const readStamps = snapshots && !options.cache && moduleFiles.some(isMissing) ? new Map<string, FileStamp>() : undefined;
  let snapshotsStamp = snapshots && !readStamps ? stampsDigest(keyed, snapshots) : undefined;
  if (!options.force && snapshots && snapshotsStamp) {
    const stamp = stampsDigest(snapshotsStamp, moduleFiles);
    if (await stampRecords(rootDir, stamp)) return { outputPath, written: false, count: names.length, mismatched: [] };
    // The seal's digest is over the canonical lockfile, so the names read from its lines are its names.
    const count = await moduleSealed(moduleFiles, lockfileBytes, inputsKey);
    if (count === names.length && (await snapshotsMatchLock(lockfileBytes, names, snapshots))) {
      await recordStamp(rootDir, stamp);
      return { outputPath, written: false, count, mismatched: [] };
    }
  }
  const result = await build(options, lockfileBytes.toString('utf8'), readStamps);
  const built = result.names;
  if (readStamps) {
    const stamps = names.map((name) => readStamps.get(name));
    snapshotsStamp = stamps.every((stamp) => stamp !== undefined) ? digestOfStamps(keyed, stamps) : undefined;
  }
  if (
    snapshotsStamp !== undefined &&
    result.mismatched.length === 0 &&
    built.length === names.length &&
    built.every((name, i) => name === names[i])
  ) {
    await recordStamp(rootDir, stampsDigest(snapshotsStamp, moduleFiles));
  }
  return { outputPath, written: result.written, count: built.length, mismatched: result.mismatched };
}

/** A locked prompt as it was built: its entry's integrity that of its snapshot as it is. */
function asBuilt(item: LockedPrompt, integrityOf: (prompt: LockedPrompt['prompt']) => string): LockedPrompt {
  return { ...item, entry: { ...item.entry, integrity: integrityOf(item.prompt) } };
}

/** The module built from the store and written when it changed. */
async function build(
  options: GenerateRunOptions,
  lockfileText: string,
  stamps: Map<string, FileStamp> | undefined,
): Promise<{ written: boolean; names: string[]; mismatched: string[] }> {
  const { outputPath } = options;
  // Loaded only now: the schema checks and the emitter are not needed when nothing changed.
  const [{ readLockedPrompts }, { generateModuleFiles }, { snapshotIntegrity }] = await Promise.all([
    import('../store/read-store.js'),
    import('../codegen/generate-module.js'),
    import('../store/snapshot-format.js'),
  ]);
  const mismatched: string[] = [];
  const prompts = await readLockedPrompts(options, {
    lockfileText,
    mismatched,
    ...(options.cache ? { cache: options.cache.snapshots } : {}),
    ...(stamps ? { stamps } : {}),
  });
  // A module built from a snapshot edited by hand records the integrity it was built from, so its
  // seal never passes for the lockfile's (restoring the snapshot rebuilds it).
  const edited = new Set(mismatched);
  const built = edited.size === 0 ? prompts : prompts.map((item) => (edited.has(item.name) ? asBuilt(item, snapshotIntegrity) : item));
  const files = generateModuleFiles(built, { outputPath, omit: options.omit, memo: options.cache?.functions });
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
  return { written, names: prompts.map((prompt) => prompt.name), mismatched };
}
