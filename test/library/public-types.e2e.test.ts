/**
 * The built declarations of the package root (dist/index.d.ts) hold the public surface and the
 * data it returns, and nothing of the inside: no `Caller` (how the CLI, the plugin and watch call
 * the library), no resolved config, service client or generate cache, no helper of the modules
 * the types come from. Every name the file declares is exported, or is a part of an exported
 * type's data (listed below). And an editor shows each config option's JSDoc on `defineConfig`.
 * Run `npx tsup` first.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DTS = path.join(ROOT, 'dist/index.d.ts');

/** What the package root exports (docs/api.md). */
const EXPORTED = [
  'AggregatePromptlockError',
  'AppSyncResult',
  'AppTypecheck',
  'CheckOptions',
  'CheckProblem',
  'CheckResult',
  'CompileError',
  'ConfigError',
  'ContextDownload',
  'ContextItem',
  'ContextItemType',
  'DiffOptions',
  'DiffResult',
  'FaultKind',
  'FieldDiff',
  'GenerateOptions',
  'GenerateResult',
  'HealthStatus',
  'LOCAL_TEST_KEY',
  'Limits',
  'LockfileError',
  'ProjectOptions',
  'Prompt',
  'PromptChange',
  'PromptDiff',
  'PromptListPage',
  'PromptMetadata',
  'PromptSummary',
  'PromptlockError',
  'PullRequestReport',
  'RunningServer',
  'ServerOptions',
  'ServerStats',
  'ServiceDescriptor',
  'ServiceError',
  'SyncEvent',
  'SyncOptions',
  'SyncResult',
  'SyncWorkspaceOptions',
  'SyncWorkspaceResult',
  'TemplateError',
  'TextField',
  'UserConfig',
  'check',
  'defineConfig',
  'diff',
  'generate',
  'startServer',
  'sync',
  'syncWorkspace',
];

/** Declared without export, as parts of what is exported: each is data a result or an option holds. */
const PARTS = [
  // UserConfig is the schema's input: the options with their JSDoc.
  'configShape',
  // SyncResult: its changes, renames, skipped prompts, placeholder notes, merge decisions.
  'BreakingChange',
  'ConflictResolution',
  'ExportRename',
  'LockChanges',
  'MergeDecision',
  'MergeReason',
  'NotedPlaceholder',
  'PlaceholderNote',
  'RestoredFile',
  'SignatureChange',
  'SkippedPrompt',
  'UnknownHintNote',
  // TextField is `(typeof TEXT_FIELDS)[number]`.
  'TEXT_FIELDS',
];

/** Names every top-level declaration of the file (interfaces, types, classes, functions, consts). */
function declaredNames(source: ts.SourceFile): string[] {
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) names.push(d.name.getText(source));
    else if (
      ts.isInterfaceDeclaration(statement) ||
      ts.isTypeAliasDeclaration(statement) ||
      ts.isClassDeclaration(statement) ||
      ts.isFunctionDeclaration(statement)
    )
      names.push(statement.name!.getText(source));
  }
  return names;
}

describe.runIf(existsSync(DTS))('the built declarations of promptlock', () => {
  const text = readFileSync(DTS, 'utf8');
  const source = ts.createSourceFile(DTS, text, ts.ScriptTarget.Latest, true);

  it('export the public surface, and declare nothing else but the parts of its data', () => {
    const exports = source.statements
      .filter(ts.isExportDeclaration)
      .flatMap((e) => (e.exportClause && ts.isNamedExports(e.exportClause) ? e.exportClause.elements.map((el) => el.name.text) : []));
    expect(exports.sort()).toEqual([...EXPORTED].sort());
    const inside = declaredNames(source).filter((name) => !EXPORTED.includes(name));
    expect(inside.sort()).toEqual([...PARTS].sort());
  });

  it('name no type of the inside: the entry points’ Caller, the resolved config, the client, the store', () => {
    for (const name of [
      'Caller',
      'LibraryEvent',
      'ResolvedConfig',
      'SyncClient',
      'GenerateCache',
      'ClientEvent',
      'Lockfile',
      'StoreView',
    ]) {
      expect(text).not.toMatch(new RegExp(`\\b${name}\\b`));
    }
    // The public functions take their options only.
    for (const fn of ['sync', 'generate', 'check', 'diff', 'syncWorkspace']) {
      expect(text).toMatch(new RegExp(`declare function ${fn}\\(options\\?: \\w+\\): Promise<\\w+>;`));
    }
  });

  it("show each config option's JSDoc and default to an editor, through defineConfig", () => {
    const file = path.join(ROOT, 'dist/__uses-config.ts');
    const host = ts.createCompilerHost({});
    const read = host.readFile.bind(host);
    host.readFile = (name) =>
      name === file ? "import type { UserConfig } from './index.js';\nexport const c: UserConfig = {};\n" : read(name);
    const exists = host.fileExists.bind(host);
    host.fileExists = (name) => name === file || exists(name);
    const program = ts.createProgram(
      [file],
      { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, noEmit: true },
      host,
    );
    const checker = program.getTypeChecker();
    const statement = program.getSourceFile(file)!.statements[1] as ts.VariableStatement;
    const type = checker.getTypeAtLocation(statement.declarationList.declarations[0]!.type!);
    const doc = (option: string) => {
      const property = checker.getPropertyOfType(type, option)!;
      return {
        text: ts.displayPartsToString(property.getDocumentationComment(checker)),
        default: property
          .getJsDocTags(checker)
          .filter((tag) => tag.name === 'default')
          .map((tag) => ts.displayPartsToString(tag.text)),
      };
    };
    expect(doc('snapshots')).toEqual({
      text: 'Folder of JSON snapshots (committed), relative to the config file.',
      default: ["'prompts'"],
    });
    expect(doc('concurrency')).toEqual({ text: 'Requests in flight at once.', default: ['16'] });
    expect(doc('workspace').text).toContain('bare slug');
  });
});
