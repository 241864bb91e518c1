/**
 * JavaScript output: with `output: "….js"` the built CLI writes the module as JavaScript and its
 * types in a `.d.ts` beside it. A plain JavaScript project (no TypeScript source) imports it and
 * its calls are type-checked by `tsc --checkJs` from the `.d.ts`; `check` verifies both files and
 * the `omit` option.
 */
import { access, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { renderModuleFromStore } from '../../src/sync/generate.js';
import { importModule } from '../codegen/helpers.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';

const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
const { serve, project } = disposables();
const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );
const PROMPTS = ['@acme/support-reply', '@acme/welcome'];

/**
 * What `tsc --checkJs --allowJs --noEmit --strict --target es2022 --module nodenext
 * --moduleResolution nodenext --pretty false <file>` run in `dir` prints for each of `files` (which
 * do not import each other), from one TypeScript program holding them all: one cold check instead
 * of one `tsc` process per file. Each file gets its own errors and those of every other file the
 * program checks (the module, its .d.ts, the libs), as its own tsc run would.
 */
function checkJs(dir: string, files: string[]): string[] {
  const options: ts.CompilerOptions = {
    checkJs: true,
    allowJs: true,
    noEmit: true,
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  };
  // As tsc run in `dir`: file names and the automatic @types are relative to it, not to this process.
  const host = ts.createCompilerHost(options);
  host.getCurrentDirectory = () => dir;
  const roots = files.map((file) => path.join(dir, file));
  const diagnostics = ts.getPreEmitDiagnostics(ts.createProgram(roots, options, host));
  const line = (diagnostic: ts.Diagnostic) => {
    const message = `error TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${path.relative(dir, diagnostic.file.fileName).split(path.sep).join('/')}(${line + 1},${character + 1}): ${message}`;
  };
  return roots.map((root) =>
    diagnostics
      .filter((diagnostic) => !diagnostic.file || diagnostic.file.fileName === root || !roots.includes(diagnostic.file.fileName))
      .map(line)
      .join('\n'),
  );
}

describe('a JavaScript project', () => {
  it('imports the .js module and gets its types from the .d.ts; check verifies both files', async () => {
    const server = await serve({ dir: path.resolve('examples/workspace') });
    const dir = await project({ baseUrl: server.url, prompts: PROMPTS, output: 'src/generated/prompts.js' });
    await writeFile(path.join(dir, 'package.json'), '{ "type": "module" }\n');
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
    const js = path.join(dir, 'src/generated/prompts.js');
    const dts = path.join(dir, 'src/generated/prompts.d.ts');
    expect(await exists(js)).toBe(true);
    expect(await exists(dts)).toBe(true);
    expect(await exists(path.join(dir, 'src/generated/prompts.ts'))).toBe(false);

    await writeFile(
      path.join(dir, 'src/good.js'),
      `import { supportReply, welcome, prompts } from './generated/prompts.js';\n\n/** @type {string} */\nexport const reply = supportReply({ customer_name: 'Ada', count: 3, topic: 'billing' }).content;\n/** @type {string | null} */\nexport const system = prompts['@acme/welcome']().systemPrompt;\nexport const title = welcome().title;\n`,
    );
    await writeFile(
      path.join(dir, 'src/bad.js'),
      `import { supportReply } from './generated/prompts.js';\n\nexport const reply = supportReply({ customer_name: 'Ada', count: 'three', topic: 'billing' });\n`,
    );
    const [good, bad] = checkJs(dir, ['src/good.js', 'src/bad.js']);
    expect(good).toBe('');
    expect(bad).toBe("src/bad.js(3,59): error TS2322: Type 'string' is not assignable to type 'number'.");

    // The module runs as plain JavaScript, renders what the .ts module renders, and exports only
    // the prompts: no `$` helper is part of its API.
    const mod = (await import(pathToFileURL(js).href)) as Record<string, (v?: object) => unknown>;
    expect(Object.keys(mod).sort()).toEqual(['prompts', 'supportReply', 'welcome']);
    const store = { rootDir: dir, lockfilePath: path.join(dir, 'prompts.lock.json'), snapshotsDir: path.join(dir, 'prompts') };
    const ts = await importModule<typeof mod>(await renderModuleFromStore(store), dir, 'as-typescript');
    const vars = { customer_name: 'Ada', count: 3, topic: 'billing' };
    expect(mod.supportReply!(vars)).toEqual(ts.supportReply!(vars));
    expect(mod.welcome!()).toEqual(ts.welcome!());
    expect(() => mod.supportReply!({ customer_name: 'Ada' })).toThrow('Prompt "@acme/support-reply" is missing variable "count".');

    // check: both files verified, the types of the .d.ts checked.
    expect((await runBuiltCli(['check'], { cwd: dir, env: {} })).code).toBe(0);
    const declarations = await readFile(dts, 'utf8');
    await writeFile(dts, declarations.replace('count: number;', 'count: string;'));
    const tampered = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toContain('the module src/generated/prompts.d.ts does not match the snapshots: run `promptlock generate`');
    expect(tampered.stderr).not.toContain('prompts.js does not match');

    // A deleted .d.ts is rebuilt by generate (the .js alone is not "up to date").
    await rm(dts);
    const generated = await runBuiltCli(['generate'], { cwd: dir, env: {} });
    expect(generated.code).toBe(0);
    expect(generated.stderr + generated.stdout).toContain('Generated');
    expect(await readFile(dts, 'utf8')).toBe(declarations);
    expect((await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} })).code).toBe(0);
  });

  it('gets a .d.mts beside a .mjs output', async () => {
    const server = await serve({ dir: path.resolve('examples/workspace') });
    const dir = await project({ baseUrl: server.url, prompts: ['@acme/welcome'], output: 'lib/prompts.mjs' });
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
    expect(await exists(path.join(dir, 'lib/prompts.mjs'))).toBe(true);
    expect(await readFile(path.join(dir, 'lib/prompts.d.mts'), 'utf8')).toContain('export declare function welcome(): RenderedPrompt;');
  });
});

describe('omit', () => {
  it('leaves fields out of the written module, and check fails when the module was built for other options', async () => {
    const server = await serve({ dir: path.resolve('examples/workspace') });
    const config = { baseUrl: server.url, prompts: PROMPTS, output: 'src/prompts.js', omit: ['context', 'systemPrompt'] };
    const dir = await project(config);
    expect((await runBuiltCli(['sync'], { cwd: dir, env })).code).toBe(0);
    const js = await readFile(path.join(dir, 'src/prompts.js'), 'utf8');
    expect(js).toContain('Quote the policy when it applies.');
    expect(js).not.toContain('You are the support agent of Acme Corp.');
    expect(js).not.toContain('https://example.com/kb');
    expect(await readFile(path.join(dir, 'src/prompts.d.ts'), 'utf8')).not.toMatch(/systemPrompt|context:/);
    expect((await runBuiltCli(['check'], { cwd: dir, env: {} })).code).toBe(0);

    // The same store, config now without omit: the module on disk is stale until generate.
    await writeFile(path.join(dir, 'prompts.config.json'), JSON.stringify({ ...config, omit: [] }));
    const stale = await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('the module src/prompts.js does not match the snapshots');
    expect((await runBuiltCli(['generate'], { cwd: dir, env: {} })).code).toBe(0);
    expect(await readFile(path.join(dir, 'src/prompts.js'), 'utf8')).toContain('You are the support agent of Acme Corp.');
    expect((await runBuiltCli(['check', '--no-typecheck'], { cwd: dir, env: {} })).code).toBe(0);
  });
});
