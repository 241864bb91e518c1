/**
 * Render parity with the service: for every prompt of the sample workspace (examples/workspace),
 * served by the real local Prompt Service on a loopback port, the generated function's `content`
 * equals what `POST /v1/prompts/get` answers for the same variables. The module is built from the
 * server's own answers (fetched without variables, as `sync` does), random values are seeded.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CodegenPrompt, generateModule } from '../../src/codegen/index.js';
import { LOCAL_TEST_KEY, startServer } from '../../src/server/index.js';
import { snapshotIntegrity } from '../../src/store/snapshot-format.js';
import { listVariables, stringifyValue, type VariableType } from '../../src/template/index.js';
import type { Prompt, PromptListPage } from '../../src/types.js';
import { compileStrict, importModule, tempDir } from './helpers.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/workspace/', import.meta.url));
const ROUNDS = 4;

type RunningServer = Awaited<ReturnType<typeof startServer>>;
let server: RunningServer;
let cleanup: () => Promise<void>;
let moduleDir: string;

beforeAll(async () => {
  server = await startServer({ dir: EXAMPLES, port: 0 });
  const dir = await tempDir('parity');
  moduleDir = dir.dir;
  cleanup = dir.remove;
});
afterAll(async () => {
  await server?.close();
  await cleanup?.();
});

async function call<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${server.url}${path}`, {
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

it('generated content equals the service for every sample prompt', { timeout: 120_000 }, async () => {
  const names = await listAll();
  expect(names.length).toBeGreaterThan(0);
  const items: CodegenPrompt[] = [];
  for (const name of names) {
    const prompt = await call<Prompt>('/v1/prompts/get', { package_name: name });
    const variables = listVariables([
      { label: 'content', text: prompt.content },
      { label: 'systemPrompt', text: prompt.systemPrompt },
      { label: 'critiquePrompt', text: prompt.critiquePrompt },
    ]);
    items.push({
      name,
      prompt,
      entry: { selector: null, version: prompt.version, id: prompt.id, integrity: snapshotIntegrity(prompt), variables },
    });
  }
  const source = generateModule(items);
  expect(compileStrict({ '/prompts.ts': source })).toEqual([]);
  const mod = await importModule<{ prompts: Record<string, (variables?: unknown) => { content: string }> }>(source, moduleDir);

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
  expect(compared).toBe(names.length * ROUNDS);
  // The sample covers prompts with variables of several types, not just plain texts.
  const types = new Set(items.flatMap((item) => item.entry.variables.map((variable) => variable.type)));
  expect(types.size).toBeGreaterThan(1);
});
