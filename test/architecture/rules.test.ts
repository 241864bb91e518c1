/**
 * The checkers of `npm run lint` fail on a violation, with the repository's own configuration:
 * dependency-cruiser on test/fixtures/architecture (a tiny src/ breaking each layer rule once), and
 * Biome on a file written to a temp folder. knip is not run here: it takes seconds on a project.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = path.join(ROOT, 'test/fixtures/architecture');
const use = disposables();

/** Runs a Node or native command to its end; `code` is its exit code. */
function run(command: string, args: readonly string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

it('dependency-cruiser reports each import a layer is not allowed (.dependency-cruiser.cjs), and fails', async () => {
  const depcruise = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
  const config = path.join(ROOT, '.dependency-cruiser.cjs');
  const result = await run(process.execPath, [depcruise, 'src', '--config', config], FIXTURE);
  // The exit code counts the errors.
  expect(result.code, result.stdout + result.stderr).toBe(11);
  // One line per violation: "  error rule: from → to"; a cycle continues on the next lines.
  const text = result.stdout.replace(/ →\s+/g, ' → ');
  const found = [...text.matchAll(/^ {2}(error|warn) ([\w-]+): (\S+) → (\S+)/gm)].map((m) => `${m[1]} ${m[2]}: ${m[3]} → ${m[4]}`).sort();
  expect(found).toEqual(
    [
      'error apart-from-the-store: src/server/reads.ts → src/store/read.ts',
      'error codegen-does-no-store-io: src/codegen/emit.ts → src/store/read.ts',
      'error layer-codegen: src/codegen/emit.ts → src/sync/steps.ts',
      'error integrations-stand-alone: src/integrations/bundled.ts → fs',
      'error layer-index: src/index.ts → src/cli/run.ts',
      'error layer-live: src/live/live.ts → src/watch/budget.ts',
      'error layer-server: src/server/handle.ts → src/sync/sync.ts',
      'error layer-sync: src/sync/sync.ts → src/api/client.ts',
      'error layer-template: src/template/parse.ts → src/errors.ts',
      'error layer-types: src/types.ts → src/errors.ts',
      'error no-cycle: src/sync/steps.ts → src/sync/sync.ts',
    ].sort(),
  );
  // What the rules allow: server/ok.ts imports template/, types.ts and the store's lockfile format.
  expect(found.join('\n')).not.toContain('src/server/ok.ts');
  expect(found.join('\n')).not.toContain('lockfile-format');
});

it('Biome reports a recommended rule and fails, and leaves the exceptions biome.jsonc makes (a `!` after a check)', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-biome-'));
  use.defer(() => removeDir(dir));
  await copyFile(path.join(ROOT, 'biome.jsonc'), path.join(dir, 'biome.jsonc'));
  await mkdir(path.join(dir, 'src'));
  await writeFile(
    path.join(dir, 'src/example.ts'),
    [
      'export function first(list: number[]): number {',
      '  list.forEach((n) => n + 1);',
      '  return list.length > 0 ? list[0]! : 0;',
      '}',
      '',
    ].join('\n'),
  );
  const biome = path.join(ROOT, 'node_modules/.bin/biome');
  const result = await run(biome, ['lint', '--vcs-enabled=false', '--reporter=json', 'src/example.ts'], dir);
  expect(result.code, result.stderr).toBe(1);
  const diagnostics = (JSON.parse(result.stdout) as { diagnostics: Array<{ category: string; location: { start: { line: number } } }> })
    .diagnostics;
  expect(diagnostics.map((d) => `${d.category} line ${d.location.start.line}`)).toEqual([
    'lint/suspicious/useIterableCallbackReturn line 2',
  ]);
});
