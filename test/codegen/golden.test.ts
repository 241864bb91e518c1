/**
 * Golden fixtures: test/fixtures/codegen/<case>/ holds a lockfile and snapshots, and the module
 * expected from them (`expected.ts`, also the documentation of what the generator emits). Run with
 * UPDATE_GOLDEN=1 to rewrite the expected modules after an intended change, then review the diff.
 */
import { readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { typecheckModule } from '../../src/codegen/index.js';
import { renderModuleFromStore } from '../../src/sync/generate.js';
import { compileStrict } from './helpers.js';

const ROOT = fileURLToPath(new URL('../fixtures/codegen/', import.meta.url));
const CASES = readdirSync(ROOT, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe.each(CASES)('fixture %s', (name) => {
  const dir = path.join(ROOT, name);
  const expectedPath = path.join(dir, 'expected.ts');

  it('generates the expected module', async () => {
    const actual = await renderModuleFromStore({
      rootDir: dir,
      lockfilePath: path.join(dir, 'prompts.lock.json'),
      snapshotsDir: path.join(dir, 'prompts'),
    });
    if (process.env.UPDATE_GOLDEN) await writeFile(expectedPath, actual);
    expect(actual).toBe(await readFile(expectedPath, 'utf8'));
  });

  it('compiles in strict mode', async () => {
    const source = await readFile(expectedPath, 'utf8');
    expect(compileStrict({ '/prompts.ts': source })).toEqual([]);
  });
});

it('typecheckModule finds the fixtures clean and reports a broken module', async () => {
  const source = await readFile(path.join(ROOT, 'types', 'expected.ts'), 'utf8');
  expect(await typecheckModule(source)).toEqual([]);
  const broken = `${source}\nexport const wrong: number = welcome().content;\n`;
  const diagnostics = await typecheckModule(broken, 'src/generated/prompts.ts');
  expect(diagnostics).toHaveLength(1);
  expect(diagnostics[0]).toMatch(
    /^src\/generated\/prompts\.ts:\d+:\d+ - error TS2322: Type 'string' is not assignable to type 'number'\.$/,
  );
});
