/**
 * Item 8: the key and the base URL may live in .env / .env.local at the project root; .env.local
 * wins over .env and the real environment over both. `serve` prints the two lines to paste.
 * Built CLI against `promptlock serve`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { runCliInProcess as runBuiltCli, type ServeProcess, startServe } from '../helpers/cli.js';
import { makeProject, removeDir } from '../helpers/project.js';

const WORKSPACE = path.resolve(import.meta.dirname, '../../examples/workspace');
const UNUSED = 'http://127.0.0.1:9'; // the discard port: nothing answers there
let serve: ServeProcess;
const dirs: string[] = [];

beforeAll(async () => {
  serve = await startServe(['--dir', WORKSPACE], WORKSPACE);
});
afterAll(async () => {
  await serve?.stop();
  for (const dir of dirs) await removeDir(dir);
});

async function project(): Promise<string> {
  // No baseUrl in the config: it comes from the environment files.
  const dir = await makeProject({ prompts: ['@acme/welcome'] });
  dirs.push(dir);
  return dir;
}

it('serve prints the two .env lines; pasted into .env, sync works with nothing in the environment', async () => {
  const envLines = () =>
    serve
      .stderr()
      .split('\n')
      .filter((line) => /^PROMPTLOCK_(BASE_URL|API_KEY)=/.test(line));
  // stderr may trail the start line on stdout by a moment.
  for (let i = 0; i < 100 && envLines().length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  const lines = envLines();
  expect(lines).toEqual([`PROMPTLOCK_BASE_URL=${serve.url}`, `PROMPTLOCK_API_KEY=${LOCAL_TEST_KEY}`]);
  const dir = await project();
  await writeFile(path.join(dir, '.env'), `# from promptlock serve\n${lines.join('\n')}\n`);
  const run = await runBuiltCli(['sync'], { cwd: dir });
  expect(run.stderr).toMatch(/Synced 1 prompt/);
  expect(run.code).toBe(0);
});

it('.env.local wins over .env; the real environment wins over both; files are read from the config folder', async () => {
  const dir = await project();
  await writeFile(path.join(dir, '.env'), `PROMPTLOCK_BASE_URL=${UNUSED}\nPROMPTLOCK_API_KEY=${LOCAL_TEST_KEY}\n`);
  await writeFile(path.join(dir, '.env.local'), `PROMPTLOCK_BASE_URL=${serve.url}\n`);
  const sub = path.join(dir, 'src', 'deep');
  await mkdir(sub, { recursive: true });
  const fromSub = await runBuiltCli(['sync'], { cwd: sub });
  expect(fromSub.stderr).toMatch(/Synced 1 prompt/);
  expect(fromSub.code).toBe(0);

  const real = await runBuiltCli(['sync'], { cwd: dir, env: { PROMPTLOCK_BASE_URL: UNUSED } });
  expect(real.code).toBe(1);
  expect(real.stderr).toContain(`Could not reach the prompt service at ${UNUSED}`);
}, 30_000);
