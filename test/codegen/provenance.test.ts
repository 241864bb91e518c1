/**
 * Provenance on every rendered prompt (docs/traces.md): each generated function returns its
 * prompt's name, version, the lockfile's integrity and `source: "snapshot"`, written in its own
 * function, so that nothing of one prompt changes when another does.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateModule, typecheckModule } from '../../src/codegen/index.js';
import { codegenPrompt, importModule, tempDir } from './helpers.js';

const support = codegenPrompt('@acme/support-reply', { version: 'v4', content: 'Hello {{name}}', provenance: 'a field of the service' });
const welcome = (text: string) => codegenPrompt('@acme/welcome', { content: text });
let dir: { dir: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir('provenance');
});
afterAll(() => dir.remove());

it('returns the prompt’s name, version, the lockfile’s integrity and its source; a service field of that name is not carried', async () => {
  const source = generateModule([support, welcome('Welcome!')]);
  expect(await typecheckModule(source)).toEqual([]);
  const mod = await importModule<Record<string, (v?: object) => Record<string, unknown>>>(source, dir.dir);
  expect(mod.supportReply!({ name: 'Ada' }).provenance).toEqual({
    name: '@acme/support-reply',
    version: 'v4',
    integrity: support.entry.integrity,
    source: 'snapshot',
  });
  expect(mod.welcome!().provenance).toMatchObject({ name: '@acme/welcome', integrity: welcome('Welcome!').entry.integrity });
});

it('changes no line of a prompt’s function when another prompt changes', () => {
  const functionOf = (module: string) =>
    module.slice(module.indexOf('/** Title of @acme/support-reply'), module.indexOf('/** Title of @acme/welcome'));
  const before = generateModule([support, welcome('Welcome!')]);
  const after = generateModule([support, welcome('Welcome aboard!')]);
  expect(functionOf(before)).toContain('provenance: { name: "@acme/support-reply", version: "v4", integrity: "sha256-');
  expect(functionOf(after)).toBe(functionOf(before));
});
