/**
 * Render parity with the service: for every prompt of the sample workspace (examples/workspace) and
 * of the dialect corpus (test/fixtures/placeholder-corpus, read by the grammar and as the SDK reads
 * it), served by the real local Prompt Service on a loopback port, the generated function's
 * `content` equals what `POST /v1/prompts/get` answers for the same variables. The module is built
 * from the server's own answers (fetched without variables, as `sync` does), random values are
 * seeded. A prompt a reading refuses (conflicting hints; `{{__proto__}}` read as the SDK reads) has
 * no function, as sync skips it.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodegenPrompt, generateModule } from '../../src/codegen/index.js';
import { TemplateError } from '../../src/errors.js';
import { LOCAL_TEST_KEY, startServer } from '../../src/server/index.js';
import { snapshotIntegrity } from '../../src/store/snapshot-format.js';
import { listVariables, type PlaceholderReading, stringifyValue, type VariableType } from '../../src/template/index.js';
import { type Prompt, type PromptListPage, promptTexts } from '../../src/types.js';
import { compileStrict, importModule, tempDir } from './helpers.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/workspace/', import.meta.url));
const CORPUS = fileURLToPath(new URL('../fixtures/placeholder-corpus/', import.meta.url));
const ROUNDS = 4;

type RunningServer = Awaited<ReturnType<typeof startServer>>;
let server: RunningServer | undefined;
let serving = '';
let cleanup: () => Promise<void>;
let moduleDir: string;

/** The one server of the file, serving `dir`. */
async function serveFolder(dir: string): Promise<void> {
  if (serving === dir) return;
  await server?.close();
  server = await startServer({ dir, port: 0 });
  serving = dir;
}
beforeAll(async () => {
  const dir = await tempDir('parity');
  moduleDir = dir.dir;
  cleanup = dir.remove;
});
afterAll(async () => {
  await server?.close();
  await cleanup?.();
});

async function call<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${server!.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${LOCAL_TEST_KEY}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(200);
  return (await response.json()) as T;
}

async function listAll(): Promise<string[]> {
  const names: string[] = [];
  let cursor = '';
  for (let page = 0; page < 50; page++) {
    const result = await call<PromptListPage>(`/v1/prompts?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    names.push(...result.prompts.map((item) => item.packageName.replace(/:.*$/, '')));
    if (!result.hasMore) return names;
    cursor = result.cursor!;
  }
  throw new Error('the list did not end');
}

/** mulberry32, seeded so a failure reproduces. */
let seed = 0xc0de;
function random(): number {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const PIECES = ['Ada', ' ', 'é', '🎉', '"', '\\', '`', '${x}', '{{name}}', '\n', '\u2028', '*/', '<b>', '0'];
const randomText = () => Array.from({ length: Math.floor(random() * 8) }, () => pick(PIECES)).join('');

function randomValue(type: VariableType): unknown {
  if (type === 'number') return pick([0, 3, -2.5, 1e21]);
  if (type === 'boolean') return random() < 0.5;
  if (type === 'array') return [randomText(), 1, { k: randomText() }];
  if (type === 'object') return { a: randomText(), n: [1, null] };
  return randomText();
}

/** Each folder, its reading, and the prompts that reading refuses. */
const FOLDERS: Array<[string, { dir: string; reading?: PlaceholderReading; refused: string[] }]> = [
  ['the sample workspace', { dir: EXAMPLES, refused: [] }],
  ['the dialect corpus, read by the grammar', { dir: CORPUS, refused: ['@corpus/conflicting-hints'] }],
  [
    'the dialect corpus, read as the SDK reads it',
    { dir: CORPUS, reading: 'sdk', refused: ['@corpus/conflicting-hints', '@corpus/long-comment', '@corpus/proto'] },
  ],
];

let modules = 0;
describe.each(FOLDERS)('%s', (_label, { dir, reading, refused }) => {
  it('generated content equals the service for every prompt', { timeout: 120_000 }, async () => {
    await serveFolder(dir);
    const names = await listAll();
    expect(names.length).toBeGreaterThan(0);
    const items: CodegenPrompt[] = [];
    const refusedNames: string[] = [];
    for (const name of names) {
      const prompt = await call<Prompt>('/v1/prompts/get', { package_name: name });
      let variables;
      try {
        variables = listVariables(promptTexts(prompt), name, reading);
      } catch (error) {
        if (!(error instanceof TemplateError)) throw error;
        refusedNames.push(name);
        continue;
      }
      const entry = { selector: null, version: prompt.version, id: prompt.id, integrity: snapshotIntegrity(prompt), variables };
      items.push({ name, prompt, entry: reading ? { ...entry, placeholders: reading } : entry });
    }
    expect(refusedNames).toEqual(refused);
    const source = generateModule(items);
    expect(compileStrict({ '/prompts.ts': source })).toEqual([]);
    const mod = await importModule<{ prompts: Record<string, (variables?: unknown) => { content: string }> }>(
      source,
      moduleDir,
      `prompts-${modules++}`,
    );

    let compared = 0;
    for (const { name, entry } of items) {
      for (let round = 0; round < ROUNDS; round++) {
        const values = Object.fromEntries(entry.variables.map((variable) => [variable.name, randomValue(variable.type)]));
        const sent = Object.fromEntries(Object.entries(values).map(([key, value]) => [key, stringifyValue(value)]));
        const served = await call<Prompt>('/v1/prompts/get', { package_name: name, variables: sent });
        const generated = mod.prompts[name]!(entry.variables.length === 0 ? undefined : values);
        expect(generated.content, `${name} with ${JSON.stringify(sent)}`).toBe(served.content);
        compared++;
      }
    }
    expect(compared).toBe(items.length * ROUNDS);
    // Prompts with variables of several types, not just plain texts.
    const types = new Set(items.flatMap((item) => item.entry.variables.map((variable) => variable.type)));
    expect(types.size).toBeGreaterThan(1);
  });
});
