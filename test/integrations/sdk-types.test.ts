/**
 * promptlock/messages against the real SDKs' types: test/fixtures/sdk-app/app.ts calls openai
 * (chat completions and responses), @anthropic-ai/sdk and ai with the helpers' output, and one
 * compiler program type-checks it in the strictest options apps use, with a generated module of
 * two prompts given in memory. Its two `@ts-expect-error` lines show the SDK types are not `any`.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { generateModule } from '../../src/codegen/index.js';
import { codegenPrompt } from '../codegen/helpers.js';

const APP_DIR = fileURLToPath(new URL('../fixtures/sdk-app/', import.meta.url));

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noUnusedLocals: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  types: ['node'],
  noEmit: true,
  skipLibCheck: true,
};

it('an app passes the helpers’ output to openai, @anthropic-ai/sdk and ai, and it type-checks', () => {
  const module = generateModule([
    codegenPrompt('@acme/support-reply', {
      systemPrompt: 'You answer support tickets for {{customer_name}}.',
      content: 'Write to {{customer_name}} about {{count:number}} open tickets.',
      critiquePrompt: 'Is the reply to {{customer_name}} polite?',
    }),
    codegenPrompt('@acme/welcome', { content: 'Welcome!' }),
  ]);
  const virtual = new Map([[path.join(APP_DIR, 'prompts.ts'), module]]);
  const host = ts.createCompilerHost(OPTIONS);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => virtual.has(file) || fileExists.call(host, file);
  host.readFile = (file) => virtual.get(file) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, onError) => {
    const text = virtual.get(file);
    return text === undefined ? getSourceFile.call(host, file, language, onError) : ts.createSourceFile(file, text, language, true);
  };
  const program = ts.createProgram([path.join(APP_DIR, 'app.ts')], OPTIONS, host);
  const errors = ts.getPreEmitDiagnostics(program).map((d) => {
    const where =
      d.file && d.start !== undefined ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : '';
    return `${where} TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
  expect(errors).toEqual([]);
  // The SDKs were really read, not taken as `any` for want of their declarations.
  const read = program.getSourceFiles().map((file) => file.fileName);
  for (const sdk of ['/openai/', '/@anthropic-ai/sdk/', '/ai/dist/'])
    expect(read.some((file) => file.includes(`node_modules${sdk}`))).toBe(true);
});
