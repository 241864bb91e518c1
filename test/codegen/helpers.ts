/** Shared helpers of the codegen tests: prompts, stores on disk, and importing a generated module. */

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import ts from 'typescript';
import type { CodegenPrompt } from '../../src/codegen/index.js';
import { encodeLockfile, type Lockfile } from '../../src/store/lockfile-format.js';
import { snapshotPath } from '../../src/store/paths.js';
import { encodeSnapshot, snapshotIntegrity } from '../../src/store/snapshot-format.js';
import { listVariables, type PlaceholderReading } from '../../src/template/index.js';
import { type Prompt, promptTexts } from '../../src/types.js';

/** A prompt as the service would answer it for `name` (`@ws/pkg`), with `fields` on top. */
function makePrompt(name: string, fields: Partial<Prompt> = {}): Prompt {
  const workspace = name.slice(1, name.indexOf('/'));
  const version = fields.version ?? 'v1';
  return {
    id: `pmt_${name.replace(/[^a-z0-9]/g, '_')}`,
    title: `Title of ${name}`,
    content: 'Hello',
    tags: [],
    version,
    workspaceSlug: workspace,
    packageName: `${name}:${version}`,
    context: [],
    metadata: { createdAt: 1_705_400_000_000 },
    ...fields,
  };
}

/** A codegen input with a lock entry that matches the prompt, its placeholders read by `placeholders`. */
export function codegenPrompt(name: string, fields: Partial<Prompt> = {}, placeholders?: PlaceholderReading): CodegenPrompt {
  const prompt = makePrompt(name, fields);
  return {
    name,
    prompt,
    entry: {
      selector: null,
      version: prompt.version,
      id: prompt.id,
      integrity: snapshotIntegrity(prompt),
      ...(placeholders ? { placeholders } : {}),
      variables: listVariables(promptTexts(prompt), name, placeholders),
    },
  };
}

/** Writes a lockfile and snapshots for `prompts` under `dir`; returns their paths. */
export async function writeStore(
  dir: string,
  prompts: readonly CodegenPrompt[],
): Promise<{ lockfilePath: string; snapshotsDir: string; rootDir: string }> {
  const lockfile: Lockfile = { lockfileVersion: 1, prompts: {} };
  const snapshotsDir = path.join(dir, 'prompts');
  for (const item of prompts) {
    lockfile.prompts[item.name] = item.entry;
    const file = snapshotPath(snapshotsDir, item.name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, encodeSnapshot(item.prompt));
  }
  const lockfilePath = path.join(dir, 'prompts.lock.json');
  await writeFile(lockfilePath, encodeLockfile(lockfile));
  return { lockfilePath, snapshotsDir, rootDir: dir };
}

export async function tempDir(label: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), `promptlock-codegen-${label}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Strips the types with esbuild and imports the module, as an app would run it. */
export async function importModule<T = Record<string, unknown>>(source: string, dir: string, name = 'prompts'): Promise<T> {
  const { code } = await transform(source, { loader: 'ts', format: 'esm', target: 'node20' });
  const file = path.join(dir, `${name}.mjs`);
  await writeFile(file, code);
  return (await import(pathToFileURL(file).href)) as T;
}

const STRICT: ts.CompilerOptions = {
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  noUnusedLocals: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2022.d.ts'],
  types: [],
  noEmit: true,
  skipLibCheck: true,
};

/**
 * Compiles in-memory files (`/prompts.ts`, `/app.ts`…) with the real TypeScript compiler in strict
 * mode; returns `file:line - TSxxxx message` for each error.
 */
export function compileStrict(files: Record<string, string>): string[] {
  const host = ts.createCompilerHost(STRICT);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (file) => file in files || ts.sys.fileExists(file);
  host.readFile = (file) => files[file] ?? readFile(file);
  host.getSourceFile = (file, language, onError) =>
    file in files ? ts.createSourceFile(file, files[file]!, language, true) : getSourceFile(file, language, onError);
  host.writeFile = () => {};
  const program = ts.createProgram(Object.keys(files), STRICT, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : '';
    return `${where} - TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}
