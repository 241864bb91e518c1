/**
 * Get answers may name their prompt by a bare slug (as the service's own SDK expects), a full name
 * or a full name with version: the built CLI accepts each form, mixed in one sync, and records the
 * name it asked for with the version the answer carries. An answer for another workspace or
 * package is refused with both names, and nothing is written.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { disposables } from '../helpers/disposables.js';
import { type HostileService, startHostileService } from '../helpers/hostile-service.js';
import { cli, validPrompt } from '../helpers/valid-prompt.js';

const { project, defer } = disposables();
let service: HostileService;
/** How the service names each prompt in its get answer, by package slug. */
let naming: Record<string, (slug: string) => Record<string, unknown>> = {};

beforeAll(async () => {
  service = await startHostileService({
    get: (asked) => {
      const slug = asked.replace(/^@[^/]+\//, '').replace(/:.*$/, '');
      return validPrompt(`@acme/${slug}`, { version: 'v3', content: `Text of ${slug}`, ...naming[slug]?.(slug) });
    },
  });
  defer(() => service.close());
});

async function snapshotName(dir: string, slug: string): Promise<unknown> {
  return JSON.parse(await readFile(path.join(dir, 'prompts', 'acme', `${slug}.json`), 'utf8')).packageName;
}

it('accepts bare, full and versioned names, mixed, and records the name asked for with the answered version', async () => {
  naming = {
    bare: (slug) => ({ packageName: slug }),
    full: (slug) => ({ packageName: `@acme/${slug}` }),
    versioned: (slug) => ({ packageName: `@acme/${slug}:v3` }),
  };
  const names = Object.keys(naming).map((slug) => `@acme/${slug}`);
  const dir = await project({ baseUrl: service.url, prompts: names.map((name) => `${name}:latest`) });
  const run = await cli(['sync'], dir);
  expect(run.code, run.stderr).toBe(0);
  const lockfile = JSON.parse(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8'));
  for (const name of names) {
    expect(lockfile.prompts[name]).toMatchObject({ selector: 'latest', version: 'v3' });
    expect(await snapshotName(dir, name.slice('@acme/'.length))).toBe(`${name}:v3`);
  }
  const module = await readFile(path.join(dir, 'src', 'generated', 'prompts.ts'), 'utf8');
  expect(module).toContain('@acme/bare:v3');

  // A second sync against the same answers changes nothing.
  const again = await cli(['sync'], dir);
  expect(again.code, again.stderr).toBe(0);
  expect(JSON.parse(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8'))).toEqual(lockfile);
});

it.each([
  ['another workspace, full', { packageName: '@other/a:v3' }, '"@other/a:v3"'],
  ['another workspace, by workspaceSlug', { packageName: 'a', workspaceSlug: 'other' }, 'workspace "other"'],
  ['another package, bare', { packageName: 'b' }, '"b"'],
  ['another package, versioned', { packageName: '@acme/b:v3' }, '"@acme/b:v3"'],
  ['a version other than the one it carries', { packageName: '@acme/a:v2' }, 'carrying version "v3"'],
])('refuses an answer naming %s, with both names, and writes nothing', async (_, fields, said) => {
  naming = { a: () => fields };
  const dir = await project({ baseUrl: service.url, prompts: ['@acme/a'] });
  const run = await cli(['sync'], dir);
  expect(run.code, run.stderr).toBe(1);
  expect(run.stderr).toContain('asked for @acme/a');
  expect(run.stderr).toContain(said);
  expect(run.stderr).not.toMatch(/unexpected failure/i);
  expect(existsSync(path.join(dir, 'prompts.lock.json'))).toBe(false);
});
