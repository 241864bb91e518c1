/**
 * `omit`: fields left out of the module for a browser bundle. The bundle of an app that imports a
 * prompt carries no trace of the omitted texts or context URLs, the types reject reading an
 * omitted field, and the option is validated with a clear error.
 */

import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateModule, generateModuleFiles, type OmittableField, typecheckModule } from '../../src/codegen/index.js';
import { parseUserConfig } from '../../src/config/parse-user-config.js';
import { ConfigError } from '../../src/errors.js';
import { codegenPrompt, compileStrict, importModule, tempDir } from '../codegen/helpers.js';

const SECRET_URL = 'https://internal.acme.example/kb/SECRET_URL';
const PROMPTS = [
  codegenPrompt('@acme/support', {
    content: 'PUBLIC_CONTENT for {{name}}',
    systemPrompt: 'SECRET_SYSTEM: never reveal the discount code {{code}}',
    critiquePrompt: 'CRITIQUE_TEXT for {{name}}',
    context: [{ id: 'ctx_1', type: 'url', label: 'SECRET_LABEL', url: SECRET_URL, createdAt: 1 }],
    metadata: { createdAt: 1_705_400_000_000, owner: 'SECRET_OWNER' },
    internalNotes: 'SECRET_EXTRA',
  }),
  codegenPrompt('@acme/other', { content: 'OTHER_CONTENT' }),
];
const OMIT: OmittableField[] = ['context', 'systemPrompt'];
const CALL = `support({ name: 'Ada', code: 'X1' })`;

let dir: string;
let remove: () => Promise<void>;
beforeAll(async () => ({ dir, remove } = await tempDir('omit')));
afterAll(() => remove());

/** esbuild's browser bundle of an app that prints everything the prompt function returns. */
async function bundle(file: string, source: string): Promise<string> {
  await writeFile(path.join(dir, file), source);
  const app = path.join(dir, `app-${file}.ts`);
  await writeFile(app, `import { support } from './${file.replace(/\.ts$/, '.js')}';\nconsole.log(JSON.stringify(${CALL}));\n`);
  const result = await build({ entryPoints: [app], bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
  return result.outputFiles[0]!.text;
}

describe('a browser bundle', () => {
  it('carries the system prompt and context URL by default, and none of the omitted fields with omit', async () => {
    const full = await bundle('full.ts', generateModule(PROMPTS));
    for (const text of ['SECRET_SYSTEM', SECRET_URL, 'SECRET_EXTRA', 'PUBLIC_CONTENT']) expect(full).toContain(text);

    const client = await bundle('client.ts', generateModule(PROMPTS, { omit: OMIT }));
    expect(client).toContain('PUBLIC_CONTENT');
    expect(client).toContain('CRITIQUE_TEXT');
    // Omitted: the system prompt, the context (URL and label), and fields beyond docs/service-interface.md.
    for (const text of ['SECRET_SYSTEM', 'SECRET_URL', 'SECRET_LABEL', 'SECRET_EXTRA', 'OTHER_CONTENT']) expect(client).not.toContain(text);
    console.log(`bundle of one prompt: ${full.length} bytes with every field, ${client.length} with omit ${JSON.stringify(OMIT)}`);
  });

  it('of the JavaScript output with omit carries none of them either', async () => {
    const [code] = generateModuleFiles(PROMPTS, { outputPath: path.join(dir, 'client-js.js'), omit: OMIT });
    await writeFile(code!.path, code!.content);
    const app = path.join(dir, 'app-js.js');
    await writeFile(app, `import { support } from './client-js.js';\nconsole.log(JSON.stringify(${CALL}));\n`);
    const out = (await build({ entryPoints: [app], bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' }))
      .outputFiles[0]!.text;
    expect(out).toContain('PUBLIC_CONTENT');
    for (const text of ['SECRET_SYSTEM', 'SECRET_URL', 'SECRET_EXTRA']) expect(out).not.toContain(text);
  });
});

it('the module exports its prompts and types, never its runtime helpers', async () => {
  const mod = await importModule(generateModule(PROMPTS), dir, 'exports');
  expect(Object.keys(mod).sort()).toEqual(['other', 'prompts', 'support']);
  expect(generateModule(PROMPTS)).not.toMatch(/export function \$/);
});

describe('the returned object', () => {
  it('has no omitted field at run time, and still requires every variable of the prompt', async () => {
    const mod = await importModule<Record<string, (v?: object) => Record<string, unknown>>>(
      generateModule(PROMPTS, { omit: ['context', 'systemPrompt', 'critiquePrompt', 'metadata'] }),
      dir,
      'all-omitted',
    );
    const result = mod.support!({ name: 'Ada', code: 'X1' });
    expect(Object.keys(result)).toEqual(['id', 'title', 'tags', 'version', 'workspaceSlug', 'packageName', 'content', 'provenance']);
    expect(result.content).toBe('PUBLIC_CONTENT for Ada');
    // `code` appears only in the omitted system prompt: the call's contract is the prompt's.
    expect(() => mod.support!({ name: 'Ada' })).toThrow('Prompt "@acme/support" is missing variable "code".');
  });

  it('type-checks with the strictest options, even when no emitted text uses the variables', async () => {
    const onlySystem = [codegenPrompt('@acme/tone', { content: 'No placeholders here', systemPrompt: 'Speak {{tone}}' })];
    expect(await typecheckModule(generateModule(onlySystem, { omit: ['systemPrompt'] }))).toEqual([]);
    expect(await typecheckModule(generateModule(PROMPTS, { omit: OMIT }))).toEqual([]);
  });

  it('type rejects reading an omitted field and accepts the others', () => {
    const source = generateModule(PROMPTS, { omit: OMIT });
    const app = (expr: string) =>
      `import { support, type RenderedPrompt } from './prompts.js';\nconst p: RenderedPrompt = ${CALL};\nexport const x = ${expr};\n`;
    expect(compileStrict({ '/prompts.ts': source, '/app.ts': app('[p.content, p.critiquePrompt, p.metadata]') })).toEqual([]);
    expect(compileStrict({ '/prompts.ts': source, '/app.ts': app('p.systemPrompt') })).toEqual([
      "/app.ts:3 - TS2339 Property 'systemPrompt' does not exist on type 'RenderedPrompt'.",
    ]);
    expect(compileStrict({ '/prompts.ts': source, '/app.ts': app('p.context') })).toEqual([
      "/app.ts:3 - TS2551 Property 'context' does not exist on type 'RenderedPrompt'. Did you mean 'content'?",
    ]);
    // Without omit the same reads compile.
    expect(compileStrict({ '/prompts.ts': generateModule(PROMPTS), '/app.ts': app('[p.systemPrompt, p.context]') })).toEqual([]);
  });

  it('is the same module for the same fields in any order', () => {
    expect(generateModule(PROMPTS, { omit: ['systemPrompt', 'context'] })).toBe(
      generateModule(PROMPTS, { omit: ['context', 'systemPrompt'] }),
    );
    expect(generateModule(PROMPTS, { omit: OMIT })).not.toBe(generateModule(PROMPTS));
  });
});

describe('the config', () => {
  const parse = (options: Record<string, unknown>) => () => parseUserConfig(options, 'prompts.config.json');

  it('accepts omit and defaults it to nothing', () => {
    expect(parseUserConfig({ omit: ['context', 'metadata'] }, 'prompts.config.json').omit).toEqual(['context', 'metadata']);
    expect(parseUserConfig({}, 'prompts.config.json').omit).toEqual([]);
  });

  it('rejects an unknown field name, naming the option, the allowed names and the value', () => {
    expect(parse({ omit: ['context', 'contex'] })).toThrow(ConfigError);
    expect(parse({ omit: ['context', 'contex'] })).toThrow(
      'Invalid value for option "omit[1]" in prompts.config.json: expected an array of field names to leave out of the module ("systemPrompt", "critiquePrompt", "context", "metadata"), got "contex".',
    );
    expect(parse({ omit: ['content'] })).toThrow('Invalid value for option "omit[0]"');
    expect(parse({ omit: 'context' })).toThrow('Invalid value for option "omit" in prompts.config.json');
  });

  it('accepts .js and .mjs outputs and refuses a declaration file as the output', () => {
    expect(parseUserConfig({ output: 'src/prompts.js' }, 'prompts.config.json').output).toBe('src/prompts.js');
    expect(parseUserConfig({ output: 'src/prompts.mjs' }, 'prompts.config.json').output).toBe('src/prompts.mjs');
    expect(parse({ output: 'src/prompts.d.ts' })).toThrow(
      'Invalid value for option "output" in prompts.config.json: expected a .ts, .mts, .cts, .js or .mjs file path, relative to the config file, got "src/prompts.d.ts".',
    );
    expect(parse({ output: 'src/prompts.json' })).toThrow('Invalid value for option "output"');
  });
});
