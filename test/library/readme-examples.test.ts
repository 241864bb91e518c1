/**
 * The README's "Bundler plugin" and "Programmatic API" examples type-check (strict) against this
 * repository's sources, `promptlock` mapped to src/index.ts and `promptlock/<bundler>` to
 * src/plugin/: an example can't drift from the API it documents.
 */
import { readFileSync } from 'node:fs';
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

function typeErrors(sources: string[]): string[] {
  const files = sources.map((_, i) => path.join(ROOT, 'test/library', `readme-example-${i}.ts`));
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    paths: { promptlock: [path.join(ROOT, 'src/index.ts')], 'promptlock/*': [path.join(ROOT, 'src/plugin/*.ts')] },
  };
  const host = ts.createCompilerHost(options);
  const virtual = new Map(files.map((file, i) => [file, `${sources[i]}\nexport {};\n`]));
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (file) => virtual.has(file) || fileExists.call(host, file);
  host.readFile = (file) => virtual.get(file) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) =>
    virtual.has(file) ? ts.createSourceFile(file, virtual.get(file)!, language) : getSourceFile.call(host, file, language, ...rest);
  const program = ts.createProgram(files, options, host);
  return files.flatMap((file) =>
    ts
      .getPreEmitDiagnostics(program, program.getSourceFile(file))
      .map((d) => `${path.basename(file)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`),
  );
}

describe('README examples', () => {
  it('of the bundler plugin and of every programmatic API function type-check', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const blocks = [...sectionBlocks(readme, 'Bundler plugin'), ...sectionBlocks(readme, 'Programmatic API')];
    const joined = blocks.join('\n');
    for (const name of ['sync(', 'generate(', 'check(', 'diff(', 'startServer(', "from 'promptlock/vite'"]) expect(joined).toContain(name);
    expect(typeErrors(blocks)).toEqual([]);
  });

  it('catches a wrong option (the check is not vacuous)', () => {
    expect(typeErrors(["import { generate } from 'promptlock';\nawait generate({ forse: true });"]).join('\n')).toMatch(/forse/);
  });
});
