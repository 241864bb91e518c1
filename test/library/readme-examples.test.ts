/**
 * The README's "Bundler plugin" and docs/api.md's examples type-check (strict) against this
 * repository's sources, `promptlock` mapped to src/index.ts and `promptlock/<bundler>` to
 * src/plugin/: an example can't drift from the API it documents. Every ```ts snippet of README.md
 * and docs/*.md also type-checks under the tsconfig `tsc --init` writes (with
 * exactOptionalPropertyTypes), where `./generated/prompts.js` is the example app's module: an
 * illustration that is not code is marked by a `<!-- no-check -->` line before it, and a line
 * saying `// compile error` must fail to compile.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sectionBlocks(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, heading).toBeGreaterThan(0);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end);
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** `promptlock` and its subpaths resolved to this repository's sources. */
const PATHS = {
  promptlock: [path.join(ROOT, 'src/index.ts')],
  'promptlock/live': [path.join(ROOT, 'src/live/index.ts')],
  'promptlock/messages': [path.join(ROOT, 'src/integrations/messages.ts')],
  'promptlock/otel': [path.join(ROOT, 'src/integrations/otel.ts')],
  'promptlock/*': [path.join(ROOT, 'src/plugin/*.ts')],
};

/**
 * Type errors of each source, as a file of its own in `test/library/snippets/`, where
 * `./generated/prompts.js` is the example app's generated module.
 */
function typeErrors(sources: string[], base: ts.CompilerOptions, names?: string[]): string[] {
  const dir = path.join(ROOT, 'test/library/snippets');
  const files = sources.map((_, i) => path.join(dir, `${names?.[i] ?? `readme-example-${i}`}.ts`));
  const options: ts.CompilerOptions = { ...base, noEmit: true, types: ['node'], paths: PATHS };
  const host = ts.createCompilerHost(options);
  const virtual = new Map(files.map((file, i) => [file, `${sources[i]}\nexport {};\n`]));
  virtual.set(path.join(dir, 'generated/prompts.ts'), readFileSync(path.join(ROOT, 'examples/app/src/generated/prompts.ts'), 'utf8'));
  const { getSourceFile, fileExists, readFile, directoryExists } = host;
  host.fileExists = (file) => virtual.has(file) || fileExists.call(host, file);
  host.directoryExists = (folder) =>
    [...virtual.keys()].some((file) => file.startsWith(`${folder}${path.sep}`)) || (directoryExists?.call(host, folder) ?? true);
  host.readFile = (file) => virtual.get(file) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) =>
    virtual.has(file) ? ts.createSourceFile(file, virtual.get(file)!, language) : getSourceFile.call(host, file, language, ...rest);
  const program = ts.createProgram(files, options, host);
  return files.flatMap((file) =>
    ts
      .getPreEmitDiagnostics(program, program.getSourceFile(file))
      .map((d) => `${path.basename(file)}${lineOf(d)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`),
  );
}

function lineOf(diagnostic: ts.Diagnostic): string {
  if (diagnostic.file === undefined || diagnostic.start === undefined) return '';
  return `:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1}`;
}

/** The compiler options of the tsconfig.json `tsc --init` writes, as a new project gets them. */
function tscInitOptions(): ts.CompilerOptions {
  const dir = mkdtempSync(path.join(tmpdir(), 'promptlock-tsc-init-'));
  try {
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '--init'], { cwd: dir, stdio: 'ignore' });
    const file = path.join(dir, 'tsconfig.json');
    const { config } = ts.readConfigFile(file, ts.sys.readFile);
    return ts.parseJsonConfigFileContent(config, ts.sys, dir).options;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Marks the ```ts block after it as an illustration that is not meant to compile. */
const NO_CHECK = '<!-- no-check -->';

/** Every ```ts block of README.md and docs/*.md not marked no-check, named by file and line. */
function allSnippets(): Array<{ name: string; source: string }> {
  const pages = [
    'README.md',
    ...readdirSync(path.join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
  return pages.flatMap((page) => {
    const text = readFileSync(path.join(ROOT, page), 'utf8');
    return [...text.matchAll(/^```ts\n([\s\S]*?)^```/gm)]
      .filter((match) => !text.slice(0, match.index).trimEnd().endsWith(NO_CHECK))
      .map((match) => ({
        name: `${page.replace(/[/.]/g, '-')}-line-${text.slice(0, match.index).split('\n').length}`,
        // A line the page marks `// compile error` must fail to compile, as it says.
        source: match[1]!.replace(/^(.*\/\/ compile error.*)$/gm, '// @ts-expect-error\n$1'),
      }));
  });
}

/** An optional field of the public option types that does not take `undefined`, by name (true when none). */
function acceptsUndefined(types: string): string {
  return `
      import type { CheckOptions, DiffOptions, GenerateOptions, ProjectOptions, ServerOptions, SyncOptions, SyncWorkspaceOptions, UserConfig } from 'promptlock';
      import type { LivePromptsOptions, RedisStoreOptions } from 'promptlock/live';
      import type { PromptlockPluginOptions } from 'promptlock/vite';
      // true, or the name of an optional field (at any depth) that does not take undefined.
      type Open<T> = T extends (...args: never[]) => unknown
        ? true
        : T extends readonly (infer E)[]
          ? Open<E>
          : T extends object
            ? { [K in keyof T]-?: {} extends Pick<T, K> ? ({ [P in K]: undefined } extends Pick<T, K> ? Open<Exclude<T[K], undefined>> : K) : Open<T[K]> }[keyof T]
            : true;
      ${types
        .split(',')
        .map((type, i) => `export const check${i}: true = true as Open<${type.trim()}>;`)
        .join('\n')}`;
}

const PUBLIC_OPTIONS =
  'CheckOptions, DiffOptions, GenerateOptions, ProjectOptions, ServerOptions, SyncOptions, SyncWorkspaceOptions, UserConfig, LivePromptsOptions, RedisStoreOptions, PromptlockPluginOptions';

/**
 * One program (a cold type-check costs seconds): every snippet, a snippet with a wrong option, and
 * the optional-fields checks, under the options `tsc --init` writes with exactOptionalPropertyTypes.
 * Each test reads the errors of its own files.
 */
const checked = (() => {
  let errors: string[] | undefined;
  const snippets = allSnippets();
  const extra = [
    { name: 'wrong-option', source: "import { generate } from 'promptlock';\nawait generate({ forse: true });" },
    { name: 'public-options', source: acceptsUndefined(PUBLIC_OPTIONS) },
    { name: 'refuses-undefined', source: acceptsUndefined('{ a?: string }') },
  ];
  const files = [...snippets, ...extra];
  return {
    snippets,
    errorsOf(name: string): string[] {
      errors ??= typeErrors(
        files.map((file) => file.source),
        { ...tscInitOptions(), exactOptionalPropertyTypes: true },
        files.map((file) => file.name),
      );
      return errors.filter((error) => error.startsWith(`${name}.ts`));
    },
  };
})();

describe('README examples', () => {
  it('of the bundler plugin and of every programmatic API function are checked', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const api = readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');
    const blocks = [...sectionBlocks(readme, 'Bundler plugin'), ...[...api.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)];
    const joined = blocks.join('\n');
    for (const name of ['sync(', 'generate(', 'check(', 'diff(', 'startServer(', "from 'promptlock/vite'"]) expect(joined).toContain(name);
    // Each of them is one of the snippets type-checked below.
    const sources = checked.snippets.map((snippet) => snippet.source);
    for (const block of blocks) expect(sources).toContain(block);
  });

  it('catches a wrong option (the check is not vacuous)', () => {
    expect(checked.errorsOf('wrong-option').join('\n')).toMatch(/forse/);
  });

  it('every ```ts snippet of README.md and docs/ type-checks as `tsc --init` sets a project up, with exactOptionalPropertyTypes', () => {
    expect(tscInitOptions()).toMatchObject({ strict: true, verbatimModuleSyntax: true, exactOptionalPropertyTypes: true });
    expect(checked.snippets.length).toBeGreaterThan(12);
    expect(checked.snippets.flatMap((snippet) => checked.errorsOf(snippet.name))).toEqual([]);
  });

  it('every optional field of a public option type accepts undefined (exactOptionalPropertyTypes)', () => {
    expect(checked.errorsOf('public-options')).toEqual([]);
    // Not vacuous: a field that refuses undefined is named.
    expect(checked.errorsOf('refuses-undefined').join('\n')).toMatch(/"a"/);
  });
});
