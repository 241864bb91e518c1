/**
 * What the module is written as, from the config: its format (TypeScript, or JavaScript with a
 * declaration file beside it) from the `output` file's extension, and the fields it leaves out
 * (`omit`). Small and dependency-free: the config schema and the emitter both read it. See README
 * "The generated module".
 */

/** Fields of the returned object a module can leave out (`omit`), e.g. for a browser bundle. */
import { OMITTABLE_FIELDS, type OmittableField } from '../config/config-schema.js';

export type { OmittableField };

/**
 * `ts`: one `.ts`/`.mts` file. `cts`: one `.cts` file, a CommonJS module (`export =`), as
 * TypeScript's `verbatimModuleSyntax` wants one (README, "The generated module"). `js`: a
 * `.js`/`.mjs` file and its `.d.ts`/`.d.mts`.
 */
export type ModuleFormat = 'ts' | 'cts' | 'js';

/** How the module is emitted; both fields default to today's module (`.ts`, every field). */
export interface ModuleOptions {
  /** The module's path (its extension picks the format). */
  outputPath?: string;
  /** Fields left out of every returned object and of `RenderedPrompt`. */
  omit?: readonly OmittableField[];
}

/** One file of the module: the code, and for JavaScript output its declarations. */
export interface ModuleFile {
  path: string;
  content: string;
}

/** Output extensions and the declaration file each one gets. */
const DECLARATION: Readonly<Record<string, string | undefined>> = { '.js': '.d.ts', '.mjs': '.d.mts' };

/** The format of `outputPath` and, for JavaScript, the path of its declaration file. */
export function moduleFormat(outputPath = 'prompts.ts'): { format: ModuleFormat; declarationPath?: string } {
  const extension = /\.[^./\\]+$/.exec(outputPath)?.[0] ?? '';
  const declaration = DECLARATION[extension];
  if (declaration === undefined) return { format: extension === '.cts' ? 'cts' : 'ts' };
  return { format: 'js', declarationPath: outputPath.slice(0, -extension.length) + declaration };
}

/** The omitted fields in one canonical order, so `['a','b']` and `['b','a']` build the same module. */
export function omittedFields(options: ModuleOptions): OmittableField[] {
  const omit = new Set(options.omit ?? []);
  return OMITTABLE_FIELDS.filter((field) => omit.has(field));
}
