/**
 * Finding 12: deep or huge JSON gets a clear error, never a stack overflow ("unexpected failure"):
 * a prompt nested 100,000 deep, a list page of 200,000 items, and a prompt nested 1,500 deep
 * (over `limits.jsonDepth`) at sync and in a snapshot at generate.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { encodeLockfile } from '../../src/store/lockfile-format.js';
import { lockPrompt } from '../../src/sync/fetch-prompt.js';
import { disposables } from '../helpers/disposables.js';
import { type HostileService, startHostileService } from '../helpers/hostile-service.js';
import { cli, validPrompt } from '../helpers/valid-prompt.js';

const { project, defer } = disposables();
let service: HostileService;

/** JSON text of a value nested `depth` objects deep, built as text (no recursion here either). */
function nestedJson(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

function promptText(name: string, depth: number): string {
  const base = JSON.stringify(validPrompt(name));
  return `${base.slice(0, -1)},"deep":${nestedJson(depth)}}`;
}

beforeAll(async () => {
  service = await startHostileService({
    get: (name) => promptText(name.replace(/:.*$/, ''), name.startsWith('@acme/abyss') ? 100_000 : 1_500),
    list: () => ({
      prompts: Array.from({ length: 200_000 }, (_, i) => ({ id: `p${i}`, title: 't', packageName: `@other/p${i}` })),
      hasMore: false,
    }),
  });
  defer(() => service.close());
});

it.each([
  ['@acme/abyss', 100_000],
  ['@acme/deep', 1_500],
])('refuses %s, nested %i deep, at sync with the limit named', async (name) => {
  const dir = await project({ baseUrl: service.url, prompts: [name] });
  const run = await cli(['sync'], dir);
  expect(run.code, run.stderr).toBe(1);
  expect(run.stderr).toContain(name);
  expect(run.stderr).toContain('limits.jsonDepth');
  expect(run.stderr).not.toMatch(/unexpected failure|call stack/i);
  expect(existsSync(path.join(dir, 'prompts.lock.json'))).toBe(false);
});

it('refuses a snapshot nested 1,500 deep at generate and in check', async () => {
  const dir = await project({ baseUrl: service.url, prompts: ['@acme/deep'] });
  const { entry } = lockPrompt('@acme/deep', null, validPrompt('@acme/deep'));
  await mkdir(path.join(dir, 'prompts/acme'), { recursive: true });
  await writeFile(path.join(dir, 'prompts/acme/deep.json'), promptText('@acme/deep', 1_500));
  await writeFile(path.join(dir, 'prompts.lock.json'), encodeLockfile({ lockfileVersion: 1, prompts: { '@acme/deep': entry } }));
  for (const command of ['generate', 'check']) {
    const run = await cli([command], dir);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout + run.stderr).toMatch(/acme[\\/]deep\.json/);
    expect(run.stdout + run.stderr).toContain('limits.jsonDepth');
    expect(run.stderr).not.toMatch(/unexpected failure|call stack/i);
  }
  expect(existsSync(path.join(dir, 'src/generated/prompts.ts'))).toBe(false);
});

it('lists a page of 200,000 items without a stack overflow', async () => {
  // A glob of another workspace: every item is listed and none is fetched.
  const dir = await project({ baseUrl: service.url, prompts: ['@acme/*'], limits: { listItems: 300_000 } });
  const run = await cli(['sync'], dir);
  expect(run.stderr).not.toMatch(/unexpected failure|call stack/i);
  expect(run.stdout + run.stderr).toMatch(/@acme\/\*/);
});
