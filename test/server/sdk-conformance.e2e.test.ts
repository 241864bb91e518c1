/**
 * Item 12: what the service's own SDK expects of `promptlock serve`, and what the client accepts:
 * `:v0` is the draft; the download address of a `url` context item is a 400 validation_error.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { runCliInProcess as runBuiltCli, type ServeProcess, startServe } from '../helpers/cli.js';
import { makeProject, removeDir } from '../helpers/project.js';

const WORKSPACE = path.resolve(import.meta.dirname, '../../examples/workspace');
const auth = { authorization: `Bearer ${LOCAL_TEST_KEY}` };
let serve: ServeProcess;
const dirs: string[] = [];

beforeAll(async () => {
  serve = await startServe(['--dir', WORKSPACE], WORKSPACE);
});
afterAll(async () => {
  await serve?.stop();
  for (const dir of dirs) await removeDir(dir);
});

async function getPrompt(packageName: string) {
  const response = await fetch(`${serve.url}/v1/prompts/get`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ package_name: packageName }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

it('serve answers :v0 with the draft, exactly as :draft', async () => {
  const v0 = await getPrompt('@acme/code-review:v0');
  const draft = await getPrompt('@acme/code-review:draft');
  expect(v0.status).toBe(200);
  expect(v0.body.version).toBe('v0');
  const strip = (body: Record<string, unknown>) => ({ ...body, metadata: { ...(body.metadata as object), generatedAt: 0 } });
  expect(strip(v0.body)).toEqual(strip(draft.body));
  // A package with no draft is still a 404 at v0.
  expect((await getPrompt('@acme/welcome:v0')).status).toBe(404);
});

it('serve answers the download-url of a url context item with 400 validation_error', async () => {
  const prompt = await getPrompt('@acme/support-reply');
  const items = prompt.body.context as Array<{ id: string; type: string }>;
  const url = items.find((item) => item.type === 'url')!;
  const file = items.find((item) => item.type === 'file')!;
  const ask = (id: string) =>
    fetch(`${serve.url}/api/v1/prompts/context/download-url?contextId=${encodeURIComponent(id)}`, { headers: auth });
  const refused = await ask(url.id);
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('validation_error');
  expect((await ask(file.id)).status).toBe(200);
  expect((await ask('ctx_no_such_item')).status).toBe(404);
});

it('the client accepts @ws/pkg:v0 in the config as the draft (floating, locked at v0)', async () => {
  const project = await makeProject({ baseUrl: serve.url, prompts: ['@acme/code-review:v0'] });
  dirs.push(project);
  const run = await runBuiltCli(['sync'], { cwd: project, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY } });
  expect(run.stderr).toMatch(/Synced 1 prompt/);
  expect(run.code).toBe(0);
  const lock = JSON.parse(await readFile(path.join(project, 'prompts.lock.json'), 'utf8')) as {
    prompts: Record<string, { selector: string; version: string }>;
  };
  expect(lock.prompts['@acme/code-review']).toMatchObject({ selector: 'draft', version: 'v0' });
  const frozen = await runBuiltCli(['sync', '--frozen'], { cwd: project, env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY } });
  expect(frozen.code).toBe(0);
});
