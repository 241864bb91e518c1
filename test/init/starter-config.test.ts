import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

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
 * A program that type-checks config files the way a user's project would, with `promptlock`
 * mapped to a module of this repository instead of the built package.
 */
function configProgram(files: string[], promptlockModule: string): ts.Program {
  return ts.createProgram(files, {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    paths: { promptlock: [promptlockModule] },
  });
}

/** The errors in these files of the program only: the rest of the repository is checked by `tsc -p .`. */
function typeErrors(program: ts.Program, files: string[]): string[] {
  return files.flatMap((file) =>
    ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((diagnostic) => {
      const where = diagnostic.file?.fileName.slice(ROOT.length) ?? file;
      return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    }),
  );
}

/**
 * One program for both type-checking tests (a cold check of the repository's source costs seconds):
 * the starter config, the golden configs and, in a folder of its own, the starter config with a
 * wrong option. Each is a module of its own, so one's errors do not change another's.
 */
let checked: Promise<{ program: ts.Program; good: string[]; wrong: string }> | undefined;
let tmp: string | undefined;
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});
function checkedConfigs() {
  checked ??= (async () => {
    tmp = await mkdtemp(join(ROOT, 'test/init/.tmp-'));
    const wrong = join(tmp, 'prompts.config.ts');
    const text = await readFile(TEMPLATE, 'utf8');
    await writeFile(wrong, text.replace('// concurrency: 16,', "concurrency: '16',\n  colour: 'blue',"));
    const good = [TEMPLATE, ...(await fixtureFiles())];
    return { program: configProgram([...good, wrong], join(ROOT, 'src/index.ts')), good, wrong };
  })();
  return checked;
}

describe('the starter config', () => {
  it('and the golden configs type-check, with promptlock mapped to src/index.ts', async () => {
    const { program, good } = await checkedConfigs();
    expect(typeErrors(program, good)).toEqual([]);
  });

  it('catches a wrong option (the check is not vacuous)', async () => {
    const { program, wrong } = await checkedConfigs();
    expect(typeErrors(program, [wrong]).join('\n')).toMatch(/'string' is not assignable to type 'number'|'colour' does not exist/);
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
