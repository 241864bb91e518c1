/**
 * Type-checks a generated module in memory with the real compiler, strict mode and the strictest
 * options users turn on, so a module that passes here compiles in their build. ts-morph is loaded
 * only when this runs (it is large; `generate` never needs it).
 */

/** Compiler options of the check: strict plus the extra flags strict projects commonly add. */
const OPTIONS = {
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  noImplicitReturns: true,
  noPropertyAccessFromIndexSignature: true,
  isolatedModules: true,
  verbatimModuleSyntax: true,
  declaration: true,
  isolatedDeclarations: true,
  noEmit: true,
  skipLibCheck: true,
};

/**
 * Compiles `source` as `fileName` and returns its diagnostics as readable lines
 * (`prompts.ts:12:5 - error TS2322: …`); an empty array means it is clean.
 */
export async function typecheckModule(source: string, fileName = 'prompts.ts'): Promise<string[]> {
  const { Project, ts } = await import('ts-morph');
  // A `.cts` module is CommonJS, as Node's module settings (`tsc --init`'s `nodenext`) read it. The
  // in-memory project gives a file no Node module format of its own, so it is said by `module`.
  const commonJs = fileName.endsWith('.cts');
  const project = new Project({
    useInMemoryFileSystem: true,
    compilerOptions: {
      ...OPTIONS,
      target: ts.ScriptTarget.ES2022,
      module: commonJs ? ts.ModuleKind.CommonJS : ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts'],
    },
  });
  // The in-memory file system is rooted at `/`; names are shown as given.
  const file = project.createSourceFile(fileName.startsWith('/') ? fileName : `/${fileName}`, source);
  const diagnostics = project.getPreEmitDiagnostics();
  return diagnostics.map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.compilerObject.messageText, '\n');
    const code = `TS${diagnostic.getCode()}`;
    const start = diagnostic.getStart();
    const where = diagnostic.getSourceFile() === file && start !== undefined ? file.getLineAndColumnAtPos(start) : undefined;
    const location = where ? `${fileName}:${where.line}:${where.column}` : fileName;
    return `${location} - error ${code}: ${message}`;
  });
}
