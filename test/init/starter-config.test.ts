import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const TEMPLATE = join(ROOT, 'templates/prompts.config.ts');
const FIXTURES = join(ROOT, 'test/fixtures/init');

/** The golden inputs and outputs are real config files, so they must type-check too. */
async function fixtureFiles(): Promise<string[]> {
  const cases = await readdir(FIXTURES, { withFileTypes: true });
  return cases
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => ['input.ts', 'expected.ts'].map((file) => join(FIXTURES, entry.name, file)));
}

/**
 * Type-checks config files the way a user's project would, with `promptlock` mapped to a
 * module of this repository instead of the built package. Returns the errors in those files only:
 * the rest of the repository is checked by `tsc -p .`.
 */
function typeErrors(files: string[], promptlockModule: string): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    paths: { promptlock: [promptlockModule] },
  });
  return files.flatMap((file) =>
    ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((diagnostic) => {
      const where = diagnostic.file?.fileName.slice(ROOT.length) ?? file;
      return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    }),
  );
}

describe('the starter config', () => {
  it('and the golden configs type-check, with promptlock mapped to src/index.ts', async () => {
    expect(typeErrors([TEMPLATE, ...(await fixtureFiles())], join(ROOT, 'src/index.ts'))).toEqual([]);
  });

  it('catches a wrong option (the check is not vacuous)', async () => {
    const dir = await mkdtemp(join(ROOT, 'test/init/.tmp-'));
    try {
      const file = join(dir, 'prompts.config.ts');
      const text = await readFile(TEMPLATE, 'utf8');
      await writeFile(file, text.replace('// concurrency: 16,', "concurrency: '16',\n  colour: 'blue',"));
      const errors = typeErrors([file], join(ROOT, 'src/index.ts'));
      expect(errors.join('\n')).toMatch(/'string' is not assignable to type 'number'|'colour' does not exist/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names every config option, with its literal @default', async () => {
    // The options and their JSDoc: the config schema's `configShape` (src/config/config-schema.ts).
    const file = join(ROOT, 'src/config/config-schema.ts');
    const source = ts.createSourceFile(file, await readFile(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const shape = source.statements
      .filter(ts.isVariableStatement)
      .flatMap((statement) => [...statement.declarationList.declarations])
      .find((declaration) => declaration.name.getText(source) === 'configShape')!.initializer as ts.ObjectLiteralExpression;
    const template = await readFile(TEMPLATE, 'utf8');
    const missing: string[] = [];
    for (const property of shape.properties) {
      const name = property.name!.getText(source);
      const tag = ts.getJSDocTags(property).find((t) => t.tagName.text === 'default');
      const value = tag ? ts.getTextOfJSDocComment(tag.comment)?.trim() : undefined;
      const literal = value !== undefined && /^('[^']*'|\d+|true|false)$/.test(value);
      const wanted = literal ? `${name}: ${value},` : `${name}:`;
      if (!template.includes(wanted)) missing.push(wanted);
    }
    expect(shape.properties.length).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });
});
