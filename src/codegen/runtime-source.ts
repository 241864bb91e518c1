/**
 * The runtime of templates/runtime.ts as a module copies it, so the module needs nothing from
 * promptlock at run time. The file is read by the TypeScript parser (runtime-declarations.ts):
 * when promptlock is built, into `PROMPTLOCK_RUNTIME` (tsup.config.ts); from the source (tests),
 * here, once, from the package's `templates/` folder.
 *
 * A module gets only what it uses: the interfaces (in `.ts` and `.d.ts` files, `RenderedPrompt`
 * without the fields the config omits) and `$readVariables` when a function reads variables, never
 * exported.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { PromptlockError } from '../errors.js';
import { findInPackage } from '../util/find-in-package.js';
import type { OmittableField } from './module-format.js';
import { extractRuntime, type RuntimeDeclarations, type RuntimeInterface } from './runtime-declarations.js';

/** Baked in by the build (tsup.config.ts `define`); absent when running from the source. */
declare const PROMPTLOCK_RUNTIME: RuntimeDeclarations | undefined;

let cached: RuntimeDeclarations | undefined;

function runtime(): RuntimeDeclarations {
  if (cached) return cached;
  if (typeof PROMPTLOCK_RUNTIME !== 'undefined') {
    cached = PROMPTLOCK_RUNTIME;
    return cached;
  }
  const file = findInPackage('templates/runtime.ts', import.meta.url);
  if (file === undefined) {
    throw new PromptlockError('Cannot find templates/runtime.ts in the promptlock package.', {
      hint: 'The installation looks incomplete: reinstall promptlock.',
    });
  }
  const { ts } = createRequire(import.meta.url)('ts-morph') as typeof import('ts-morph');
  cached = extractRuntime(ts, readFileSync(file, 'utf8'));
  return cached;
}

/**
 * An interface as the module declares it: `RenderedPrompt` without the `omit` members. With any
 * field omitted the index signature goes too (and `generateModule` drops fields beyond the service
 * interface's): otherwise reading an omitted field would still type-check, as `unknown`.
 */
function interfaceText(declaration: RuntimeInterface, omit: readonly OmittableField[]): string {
  const dropped = new Set<string>(omit);
  const members =
    declaration.name === 'RenderedPrompt' && omit.length > 0
      ? declaration.members.filter((member) => member.name !== '[index]' && !dropped.has(member.name))
      : declaration.members;
  return declaration.head + members.map((member) => member.text).join('') + declaration.tail;
}

/** What one file of the module copies from the runtime. */
export interface RuntimeNeeds {
  /** `ts`: interfaces and helpers; `cts`: the same, the interfaces not exported (the module's `export =` does); `js`: helpers as JavaScript; `dts`: interfaces. */
  file: 'ts' | 'cts' | 'js' | 'dts';
  omit: readonly OmittableField[];
  /** Some function reads variables (`$readVariables`). */
  readVariables: boolean;
}

/** The names of the runtime's interfaces, which every TypeScript module declares (a `.cts` module exports them by name). */
export function runtimeInterfaceNames(): string[] {
  return runtime().interfaces.map((declaration) => declaration.name);
}

/** The runtime part of one module file: a marker line and the declarations it needs, or ''. */
export function runtimeFor(needs: RuntimeNeeds): string {
  const { interfaces, helpers } = runtime();
  const parts: string[] = [];
  for (const declaration of needs.file === 'js' ? [] : interfaces) {
    // The head is templates/runtime.ts's own text (its JSDoc, then `export interface …`), never a prompt's.
    const head = needs.file === 'cts' ? declaration.head.replace(/\bexport interface /, 'interface ') : declaration.head;
    parts.push(interfaceText({ ...declaration, head }, needs.omit));
  }
  if (needs.file !== 'dts' && needs.readVariables) for (const helper of helpers) parts.push(needs.file === 'js' ? helper.js : helper.ts);
  if (parts.length === 0) return '';
  return `// Runtime (copied from promptlock's templates/runtime.ts).\n\n${parts.join('\n\n')}\n`;
}
