/**
 * `sync --typecheck` runs the app's own type-check (docs/ci.md): its "typecheck" script with the
 * project's package manager, else the TypeScript compiler it has installed, else nothing, saying
 * why. Real compilers on real files: TypeScript is this repository's, linked into the project.
 */
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { typecheckApp, typecheckCommand } from '../../src/sync/app-typecheck.js';
import { removeDir } from '../helpers/project.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

async function projectWith(files: Record<string, string>, options: { typescript?: boolean } = {}): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-typecheck-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  if (options.typescript) {
    await mkdir(path.join(dir, 'node_modules'));
    await symlink(path.join(REPO, 'node_modules/typescript'), path.join(dir, 'node_modules/typescript'), 'dir');
  }
  return dir;
}

const TSCONFIG = JSON.stringify({
  compilerOptions: { strict: true, noEmit: true, module: 'nodenext', skipLibCheck: true },
  include: ['src'],
});
const pkg = (scripts: Record<string, string> = {}) => JSON.stringify({ name: 'app', type: 'module', scripts });

describe('typecheckCommand', () => {
  it.each([
    [
      'its "typecheck" script, run by npm',
      { 'package.json': pkg({ typecheck: 'tsc' }), 'package-lock.json': '{}' },
      false,
      'npm run typecheck',
    ],
    [
      'its "typecheck" script, run by pnpm',
      { 'package.json': pkg({ typecheck: 'tsc' }), 'pnpm-lock.yaml': '' },
      false,
      'pnpm run typecheck',
    ],
    ['no script: the TypeScript it has installed', { 'package.json': pkg(), 'tsconfig.json': TSCONFIG }, true, 'tsc --noEmit'],
  ])('%s', async (_name, files, typescript, shown) => {
    expect(await typecheckCommand(await projectWith(files, { typescript }))).toMatchObject({ shown });
  });

  it.each([
    ['no script and no TypeScript', { 'package.json': pkg() }, false, 'it has no "typecheck" script and TypeScript is not installed'],
    ['TypeScript but no tsconfig.json', { 'package.json': pkg() }, true, 'it has no "typecheck" script and no tsconfig.json'],
  ])('nothing to run: %s', async (_name, files, typescript, reason) => {
    expect(await typecheckCommand(await projectWith(files, { typescript }))).toEqual({ reason });
  });
});

describe('typecheckApp', () => {
  it("reads the compiler's errors, file and line, relative to the project", async () => {
    const dir = await projectWith(
      { 'package.json': pkg(), 'tsconfig.json': TSCONFIG, 'src/a.ts': 'export const n: number = 1;\nexport const s: string = n;\n' },
      { typescript: true },
    );
    expect(await typecheckApp(dir, process.env)).toMatchObject({
      status: 'failed',
      command: 'tsc --noEmit',
      errors: [{ file: 'src/a.ts', line: 2, column: 14, code: 'TS2322', message: "Type 'number' is not assignable to type 'string'." }],
    });
  });

  it('passes when the script exits 0, and never hands the API key to it', async () => {
    const script = 'node -e "process.exit(process.env.PROMPTLOCK_API_KEY || process.env.BAYT_API_KEY ? 3 : 0)"';
    const dir = await projectWith({ 'package.json': pkg({ typecheck: script }), 'package-lock.json': '{}' });
    const env = { ...process.env, PROMPTLOCK_API_KEY: 'sk_live_secret', BAYT_API_KEY: 'sk_live_secret' };
    expect(await typecheckApp(dir, env)).toEqual({ status: 'passed', command: 'npm run typecheck' });
  });

  it('keeps the last lines of a failure that prints no compiler error', async () => {
    const script = "node -e \"console.log('one'); console.error('it broke'); process.exit(4)\"";
    const dir = await projectWith({ 'package.json': pkg({ typecheck: script }), 'package-lock.json': '{}' });
    const result = await typecheckApp(dir, process.env);
    expect(result).toMatchObject({ status: 'failed', exitCode: 4, errors: [], timedOut: false });
    expect(result.status === 'failed' && result.lastLines).toContain('it broke');
  });
});
