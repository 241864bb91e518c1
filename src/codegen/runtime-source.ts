/**
 * The text of templates/runtime.ts, copied into every generated module so the module needs
 * nothing from promptlock at run time. Read from the package's `templates/` folder (findInPackage):
 * next to `dist/` when running built, two levels up from `src/codegen/` in tests.
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

let cached: string | undefined;

/** The runtime file's body: its file comment dropped, LF line ends. Part of the inputs digest. */
export function runtimeSource(): string {
  if (cached !== undefined) return cached;
  const file = findInPackage('templates/runtime.ts', import.meta.url);
  if (file === undefined) {
    throw new PromptlockError('Cannot find templates/runtime.ts in the promptlock package.', {
      hint: 'The installation looks incomplete: reinstall promptlock.',
    });
  }
  const text = readFileSync(file, 'utf8');
  cached = `${text
    .replace(/^\/\*\*[\s\S]*?\*\/\s*/, '')
    .replace(/\r\n/g, '\n')
    .trimEnd()}\n`;
  return cached;
}

/** One top-level declaration of the runtime, with the JSDoc above it. */
interface Declaration {
  name: string;
  kind: 'interface' | 'function' | 'const';
  text: string;
}

let declarations: Declaration[] | undefined;

function runtimeDeclarations(): Declaration[] {
  if (declarations) return declarations;
  declarations = runtimeSource()
    .trimEnd()
    .split(/\n\n(?=\/\*\*)/)
    .map((text) => {
      const match = /^export (interface|function|const) (\$?\w+)/m.exec(text);
      if (!match) throw new Error(`templates/runtime.ts: a block declares nothing exported:\n${text}`);
      return { kind: match[1] as Declaration['kind'], name: match[2]!, text };
    });
  return declarations;
}

/**
 * `RenderedPrompt` without the `omit` members. With any field omitted the index signature goes
 * too (and `generateModule` drops fields beyond the service interface's): otherwise reading an omitted field
 * would still type-check, as `unknown`.
 */
function renderedPrompt(text: string, omit: readonly OmittableField[]): string {
  if (omit.length === 0) return text;
  const dropped = new Set<string>(omit);
  const lines = text.split('\n');
  const out: string[] = [];
  let doc: string[] = [];
  for (const line of lines) {
    if (/^ {2}\/\*\*.*\*\/$/.test(line)) {
      doc.push(line);
      continue;
    }
    const member = /^ {2}(\[field: string\]|\w+)/.exec(line)?.[1];
    if (member !== undefined && (member === '[field: string]' || dropped.has(member))) {
      doc = [];
      continue;
    }
    out.push(...doc, line);
    doc = [];
  }
  return out.join('\n');
}

let typescript: typeof import('ts-morph').ts | undefined;
const transpiled = new Map<string, string>();

/** A helper as JavaScript: the types stripped by the TypeScript compiler (ts-morph's), once per helper. */
function toJavaScript(text: string): string {
  const hit = transpiled.get(text);
  if (hit !== undefined) return hit;
  typescript ??= (createRequire(import.meta.url)('ts-morph') as typeof import('ts-morph')).ts;
  const { outputText } = typescript.transpileModule(text, {
    compilerOptions: { target: typescript.ScriptTarget.ES2022, module: typescript.ModuleKind.ESNext, removeComments: false },
  });
  // The helper alone is a script to the compiler, which marks it strict; a module already is.
  const out = outputText
    .replace(/\r\n/g, '\n')
    .replace(/^"use strict";\n/, '')
    .replace(/\n*export \{\};\s*$/, '')
    .trimEnd();
  transpiled.set(text, out);
  return out;
}

/** What one file of the module copies from the runtime. */
export interface RuntimeNeeds {
  /** `ts`: interfaces and helpers; `js`: helpers as JavaScript; `dts`: interfaces. */
  file: 'ts' | 'js' | 'dts';
  omit: readonly OmittableField[];
  /** Some function reads variables (`$readVariables`). */
  readVariables: boolean;
}

/** The runtime part of one module file: a marker line and the declarations it needs, or ''. */
export function runtimeFor(needs: RuntimeNeeds): string {
  const parts: string[] = [];
  for (const declaration of runtimeDeclarations()) {
    if (declaration.kind === 'interface') {
      if (needs.file === 'js') continue;
      parts.push(declaration.name === 'RenderedPrompt' ? renderedPrompt(declaration.text, needs.omit) : declaration.text);
    } else if (needs.file !== 'dts' && needs.readVariables) {
      const text = declaration.text.replace(/^export (function|const) /m, '$1 ');
      parts.push(needs.file === 'js' ? toJavaScript(text) : text);
    }
  }
  if (parts.length === 0) return '';
  return `// Runtime (copied from promptlock's templates/runtime.ts).\n\n${parts.join('\n\n')}\n`;
}
