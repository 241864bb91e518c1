/**
 * Finding 1 (code injection) as a table over every field of the prompt object and of its context
 * items, along both ways a value reaches the generated module:
 *   (a) a hostile service answering crafted JSON, synced with the built CLI;
 *   (b) a snapshot or lockfile edited as in a pull request, then `generate` with the built CLI.
 * A grammar field (ids, version, slugs, package name, numbers, variable names) with a hostile
 * value is rejected with an error naming the prompt and the field, and nothing is written. Free
 * text is stored as it came and the module, really imported, runs nothing (a global sentinel stays
 * unset) and returns the exact text.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { typecheckModule } from '../../src/codegen/index.js';
import { encodeLockfile, type LockEntry } from '../../src/store/lockfile-format.js';
import { lockPrompt } from '../../src/sync/fetch-prompt.js';
import type { Prompt } from '../../src/types.js';
import { importModule } from '../codegen/helpers.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { type HostileService, startHostileService } from '../helpers/hostile-service.js';

/** Closes a comment, runs code, opens a string template, breaks lines and HTML: all at once. */
const PAYLOAD = 'v1 */ globalThis.pwned=1; /* \u2028 \u2029 ${globalThis.pwned=2} ` </script> " \' \\ \n // end';
/** The same, legal as a variable name (no braces, colon or `//`, trimmed). */
const VAR_NAME = 'a */ globalThis.pwned=1; /* \u2028 ` </script> " \\ \'$';
const VAR_DESCRIPTION = '*/ globalThis.pwned=1; /* \u2028 ` </script>';
const VAR_HINT = '*/ globalThis.pwned=1 /*';
const KEY = 'sk_live_InjectionTestKey0000000000abcd';

const sentinel = globalThis as { pwned?: unknown };
const ctx0 = (p: Prompt) => p.context[0] as unknown as Record<string, unknown>;

function basePrompt(name: string): Prompt {
  const workspace = name.slice(1, name.indexOf('/'));
  return {
    id: 'pmt_base',
    title: 'Base',
    description: null,
    category: null,
    tags: [],
    version: 'v1',
    workspaceSlug: workspace,
    packageName: `${name}:v1`,
    systemPrompt: 'System {{name}}',
    content: 'Hello {{name}}',
    critiquePrompt: null,
    context: [
      {
        id: 'ctx_1',
        type: 'url',
        label: 'Label',
        createdAt: 1_705_400_000_000,
        url: 'https://example.com/doc',
        urlFetchedAt: null,
        fileName: null,
        fileSize: null,
        mimeType: null,
      },
    ],
    metadata: { createdAt: 1_705_400_000_000 },
  };
}

/** Free-text fields: each gets the payload; `read` takes it back out of the rendered prompt. */
const ESCAPED: Array<[string, (p: Prompt) => void, (r: Record<string, any>) => unknown, unknown]> = [
  ['title', (p) => (p.title = PAYLOAD), (r) => r.title, PAYLOAD],
  ['description', (p) => (p.description = PAYLOAD), (r) => r.description, PAYLOAD],
  ['category', (p) => (p.category = PAYLOAD), (r) => r.category, PAYLOAD],
  ['tags[0]', (p) => (p.tags = [PAYLOAD]), (r) => r.tags[0], PAYLOAD],
  // Texts: the later rows add placeholders to them, so each is compared with its final rendering.
  ['content (text)', (p) => (p.content = `Hello {{name}} ${PAYLOAD}`), (r) => r.content, `Hello N ${PAYLOAD} D`],
  ['systemPrompt (text)', (p) => (p.systemPrompt = `${PAYLOAD} {{name}}`), (r) => r.systemPrompt, `${PAYLOAD} N H`],
  ['critiquePrompt (text)', (p) => (p.critiquePrompt = PAYLOAD), (r) => r.critiquePrompt, `${PAYLOAD} [V]`],
  ['variable name', (p) => (p.critiquePrompt += ` [{{${VAR_NAME}}}]`), (r) => r.critiquePrompt, `${PAYLOAD} [V]`],
  ['variable description', (p) => (p.content += ` {{described // ${VAR_DESCRIPTION}}}`), (r) => r.content, `Hello N ${PAYLOAD} D`],
  ['variable hint', (p) => (p.systemPrompt += ` {{hinted:${VAR_HINT}}}`), (r) => r.systemPrompt, `${PAYLOAD} N H`],
  ['context[0].label', (p) => (p.context[0]!.label = PAYLOAD), (r) => r.context[0].label, PAYLOAD],
  ['context[0].url', (p) => (p.context[0]!.url = PAYLOAD), (r) => r.context[0].url, PAYLOAD],
  ['context[0].fileName', (p) => (p.context[0]!.fileName = PAYLOAD), (r) => r.context[0].fileName, PAYLOAD],
  ['context[0].mimeType', (p) => (p.context[0]!.mimeType = PAYLOAD), (r) => r.context[0].mimeType, PAYLOAD],
  ['context[0] extra key and value', (p) => (ctx0(p)[PAYLOAD] = PAYLOAD), (r) => r.context[0][PAYLOAD], PAYLOAD],
  ['metadata extra', (p) => (p.metadata.extra = PAYLOAD), (r) => r.metadata.extra, PAYLOAD],
  ['metadata nested', (p) => (p.metadata.nested = { deep: [PAYLOAD] }), (r) => r.metadata.nested.deep[0], PAYLOAD],
  ['metadata hostile key', (p) => (p.metadata[PAYLOAD] = PAYLOAD), (r) => r.metadata[PAYLOAD], PAYLOAD],
  ['extra field', (p) => (p.extraField = { value: PAYLOAD }), (r) => r.extraField.value, PAYLOAD],
  ['extra field with a hostile key', (p) => (p[PAYLOAD] = PAYLOAD), (r) => r[PAYLOAD], PAYLOAD],
];

const VARIABLES = { name: 'N', [VAR_NAME]: 'V', described: 'D', hinted: 'H' };

function escapedPrompt(name: string): Prompt {
  const prompt = basePrompt(name);
  for (const [, mutate] of ESCAPED) mutate(prompt);
  return prompt;
}

/** Grammar fields: a hostile value is refused; `field` is what the error must name. */
const REJECTED: Array<[string, (p: Prompt) => void, RegExp]> = [
  ['id', (p) => (p.id = PAYLOAD), /"?id"?/],
  ['version', (p) => (p.version = 'v1 */ globalThis.pwned=1 /*'), /"?version"?/],
  ['workspaceSlug', (p) => (p.workspaceSlug = PAYLOAD), /"?workspaceSlug"?/],
  ['packageName', (p) => (p.packageName = `@acme/x:v1 */ globalThis.pwned=1 /*`), /"?packageName"?/],
  ['context[0].id (payload)', (p) => (p.context[0]!.id = PAYLOAD), /context\[0\]\.id/],
  ['context[0].id (..)', (p) => (p.context[0]!.id = '..'), /context\[0\]\.id/],
  ['context[0].id (.)', (p) => (p.context[0]!.id = '.'), /context\[0\]\.id/],
  // The lockfile keys each context item's file by its id: `__proto__` would set that record's prototype.
  ['context[0].id (__proto__)', (p) => (p.context[0]!.id = '__proto__'), /context\[0\]\.id/],
  ['context[0].type', (p) => (ctx0(p).type = PAYLOAD), /context\[0\]\.type/],
  ['context[0].createdAt', (p) => (ctx0(p).createdAt = PAYLOAD), /context\[0\]\.createdAt/],
  ['context[0].urlFetchedAt', (p) => (ctx0(p).urlFetchedAt = PAYLOAD), /context\[0\]\.urlFetchedAt/],
  ['context[0].fileSize', (p) => (ctx0(p).fileSize = -1), /context\[0\]\.fileSize/],
  ['metadata.createdAt', (p) => ((p.metadata as Record<string, unknown>).createdAt = PAYLOAD), /metadata\.createdAt/],
  ['a "__proto__" key', (p) => (p.metadata = JSON.parse('{"createdAt": 1, "__proto__": {"polluted": 1}}')), /metadata\.__proto__/],
];

const { project, defer } = disposables();
let service: HostileService;
/** Prompts the hostile service answers, by base package name. */
const answers = new Map<string, unknown>();

beforeAll(async () => {
  service = await startHostileService({
    get: (name) => answers.get(name.replace(/:.*$/, '')) ?? { error: 'not_found' },
  });
  defer(() => service.close());
});
afterEach(() => {
  expect(sentinel.pwned).toBeUndefined();
});

function cli(args: string[], cwd: string) {
  return runBuiltCli(args, { cwd, env: { PROMPTLOCK_API_KEY: KEY } });
}

/**
 * Its placeholders read as the SDK reads them (README, "Placeholders"), so every hostile name and
 * hint below is a variable that reaches code; by the grammar they would be text, escaped as texts
 * are (test/sync/placeholder-corpus.e2e.test.ts). `{{__proto__}}`: test/codegen/proto-variable.security.test.ts.
 */
async function newProject(name: string): Promise<string> {
  return project({ baseUrl: service.url, prompts: [name], output: 'src/generated/prompts.ts', placeholders: { [name]: 'sdk' } });
}

/** Writes the lockfile and snapshot sync would have written, after `edit` (the pull request). */
async function writeStore(
  dir: string,
  name: string,
  prompt: Prompt,
  { lockedFrom = prompt, edit = () => {} }: { lockedFrom?: Prompt; edit?: (entry: LockEntry) => void } = {},
): Promise<void> {
  const { entry } = lockPrompt(name, null, lockedFrom, 'sdk');
  edit(entry);
  const file = `${path.join(dir, 'prompts', ...name.slice(1).split('/'))}.json`;
  await mkdir(path.dirname(file), { recursive: true });
  // As a person would edit it: plain JSON (encodeSnapshot would drop a "__proto__" key).
  await writeFile(file, `${JSON.stringify(prompt, null, 2)}\n`);
  await writeFile(path.join(dir, 'prompts.lock.json'), encodeLockfile({ lockfileVersion: 1, prompts: { [name]: entry } }));
}

async function expectEscaped(dir: string): Promise<void> {
  const source = await readFile(path.join(dir, 'src/generated/prompts.ts'), 'utf8');
  expect(await typecheckModule(source)).toEqual([]);
  const module = await importModule<Record<string, (v: unknown) => Record<string, unknown>>>(source, dir);
  expect(sentinel.pwned).toBeUndefined();
  const rendered = module.hostile!(VARIABLES);
  expect(sentinel.pwned).toBeUndefined();
  for (const [field, , read, want] of ESCAPED) expect(read(rendered), field).toBe(want);
}

describe('(a) a hostile service, then sync', () => {
  it('stores every free-text field as it came; the module runs nothing and returns the exact texts', async () => {
    answers.set('@acme/hostile', escapedPrompt('@acme/hostile'));
    const dir = await newProject('@acme/hostile');
    const run = await cli(['sync'], dir);
    expect(run.code, run.stderr).toBe(0);
    await expectEscaped(dir);
    const snapshot = JSON.parse(await readFile(path.join(dir, 'prompts/acme/hostile.json'), 'utf8'));
    expect(snapshot.title).toBe(PAYLOAD);
    const check = await cli(['check'], dir);
    expect(check.code, check.stdout + check.stderr).toBe(0);
  });

  describe.concurrent('refuses a grammar field', () => {
    it.each(REJECTED.map(([label, mutate, field], i) => ({ label, mutate, field, i })))('$label', async ({ mutate, field, i }) => {
      const name = `@acme/case-${i}`;
      const prompt = basePrompt(name);
      mutate(prompt);
      answers.set(name, prompt);
      const dir = await newProject(name);
      const run = await cli(['sync'], dir);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(name);
      expect(run.stderr).toMatch(field);
      expect(run.stderr).not.toMatch(/unexpected failure/i);
      expect(existsSync(path.join(dir, 'prompts.lock.json'))).toBe(false);
      expect(existsSync(path.join(dir, 'src/generated/prompts.ts'))).toBe(false);
    });
  });
});

describe('(b) a snapshot or lockfile edited in a pull request, then generate', () => {
  it('keeps every free-text field; the module runs nothing and returns the exact texts', async () => {
    const dir = await newProject('@acme/hostile');
    await writeStore(dir, '@acme/hostile', escapedPrompt('@acme/hostile'));
    const run = await cli(['generate'], dir);
    expect(run.code, run.stderr).toBe(0);
    await expectEscaped(dir);
  });

  describe.concurrent('refuses a grammar field of the snapshot', () => {
    it.each(REJECTED.map(([label, mutate, field]) => ({ label, mutate, field })))('$label', async ({ mutate, field }) => {
      const dir = await newProject('@acme/hostile');
      const prompt = basePrompt('@acme/hostile');
      mutate(prompt);
      // Only the snapshot is edited; the lockfile stays as sync wrote it for the original.
      await writeStore(dir, '@acme/hostile', prompt, { lockedFrom: basePrompt('@acme/hostile') });
      const run = await cli(['generate'], dir);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(/acme[\\/]hostile\.json/);
      expect(run.stderr).toMatch(field);
      expect(run.stderr).not.toMatch(/unexpected failure/i);
      expect(existsSync(path.join(dir, 'src/generated/prompts.ts'))).toBe(false);
    });
  });

  const LOCK_FIELDS: Array<[string, (entry: LockEntry) => void, RegExp]> = [
    ['version', (e) => (e.version = 'v1 */ globalThis.pwned=1 /*'), /prompts\.@acme\/hostile\.version/],
    ['id', (e) => (e.id = PAYLOAD), /prompts\.@acme\/hostile\.id/],
    ['selector', (e) => (e.selector = PAYLOAD), /prompts\.@acme\/hostile\.selector/],
    ['variables[0].name', (e) => (e.variables[0]!.name = '__proto__'), /prompts\.@acme\/hostile\.variables\.0\.name/],
    [
      'files key (context id ..)',
      (e) => (e.files = { '..': { path: 'acme/hostile.files/x', size: 1, integrity: 'sha256-AAAA' } }),
      /prompts\.@acme\/hostile\.files/,
    ],
  ];
  describe.concurrent('refuses a grammar field of the lockfile, in generate and in check', () => {
    it.each(LOCK_FIELDS.map(([label, edit, field]) => ({ label, edit, field })))('$label', async ({ edit, field }) => {
      const dir = await newProject('@acme/hostile');
      await writeStore(dir, '@acme/hostile', basePrompt('@acme/hostile'), { edit });
      for (const command of ['generate', 'check']) {
        const run = await cli([command], dir);
        expect(run.code, `${command}: ${run.stdout}${run.stderr}`).toBe(1);
        expect(run.stdout + run.stderr).toMatch(field);
        expect(run.stderr).not.toMatch(/unexpected failure/i);
      }
      expect(existsSync(path.join(dir, 'src/generated/prompts.ts'))).toBe(false);
    });
  });
});
