/**
 * Item 7 and the README Quickstart: a real `npm pack` of this repository installed into a fresh
 * app. The Quickstart's commands run as written (the no-account path, against the `promptlock
 * serve` it starts); then the `prepare` script `init` added is exercised the way teams install:
 * a first `npm install` before any sync, a production `npm ci --omit=dev` (no promptlock there),
 * a normal install, and an install whose generate really fails (the failure is not hidden).
 * Needs `npx tsup` first; npm installs from its cache (--prefer-offline).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { BUILT, packPromptlock, REPO as ROOT, sh, shellEnv } from '../helpers/packed-install.js';
import { removeDir } from '../helpers/project.js';

const NPM_FLAGS = '--prefer-offline --no-audit --no-fund';
const dirs: string[] = [];
const stops: Array<() => void> = [];
afterAll(async () => {
  for (const stop of stops) stop();
  for (const dir of dirs) await removeDir(dir);
});

const env = shellEnv();

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The shell lines of the Quickstart's code blocks, in order, one array per block. */
async function quickstartBlocks(): Promise<string[][]> {
  const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.split('\n## Quickstart\n')[1]!.split('\n## ')[0]!;
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.split('\n').filter((line) => line.trim() !== ''));
}

it.runIf(BUILT)(
  'Quickstart on a fresh app, then first, production and normal installs all succeed; a real generate failure fails the install',
  async () => {
    const work = await mkdtemp(path.join(tmpdir(), 'promptlock-pack-'));
    dirs.push(work);
    const tarball = await packPromptlock(work);
    const app = path.join(work, 'app');
    await sh(`mkdir app`, work);
    await writeFile(path.join(app, 'package.json'), '{ "name": "fresh-app", "version": "1.0.0", "private": true }\n');

    const blocks = await quickstartBlocks();
    // The account path and the no-account path, found by what they run (the brand-new-app block sits between them).
    const account = blocks.find((block) => block[0] === 'npm install --save-dev promptlock');
    const local = blocks.find((block) => block.some((line) => line.includes('promptlock serve')));
    expect(account![0]).toBe('npm install --save-dev promptlock');
    // The package under test instead of the registry's.
    const install = await sh(`npm install --save-dev "${tarball}" ${NPM_FLAGS}`, app);
    expect(install.code, install.stderr).toBe(0);
    const init = await sh(account![1]!, app);
    expect(init.code, init.stderr).toBe(0);
    expect(JSON.parse(await readFile(path.join(app, 'package.json'), 'utf8')).scripts.prepare).toMatch(/\|\| promptlock generate$/);

    // A first install before any sync: prepare runs generate, which writes a module with no prompts.
    const first = await sh(`npm install ${NPM_FLAGS}`, app);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('prompts.lock.json does not exist yet');
    expect(existsSync(path.join(app, 'src/generated/prompts.ts'))).toBe(true);

    // The no-account path, as written, on a free port instead of 4010.
    const port = String(await freePort());
    for (const written of local!) {
      const line = written.replaceAll('4010', port);
      if (/promptlock serve .*&/.test(line)) {
        const args = line
          .replace(/^npx promptlock /, '')
          .replace(/&.*$/, '')
          .trim()
          .split(/\s+/);
        const serve = spawn(process.execPath, [path.join(app, 'node_modules/promptlock/bin/promptlock.js'), ...args], {
          cwd: app,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        stops.push(() => serve.exitCode === null && serve.pid !== undefined && process.kill(serve.pid, 'SIGTERM'));
        await new Promise<void>((resolve, reject) => {
          let out = '';
          serve.stdout.on('data', (chunk) => {
            out += chunk;
            if (/listening on/.test(out)) resolve();
          });
          serve.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
        });
        continue;
      }
      const run = await sh(line, app);
      expect(run.code, `${line}\n${run.stderr}`).toBe(0);
    }
    expect(await readFile(path.join(app, 'src/generated/prompts.ts'), 'utf8')).toContain('export function supportReply(');
    const check = await sh('npx promptlock check', app);
    expect(check.code, check.stderr).toBe(0);
    // The Quickstart's commit line names exactly the files that now exist.
    expect((await sh(`git init -q && ${account!.at(-1)}`, app)).code).toBe(0);

    // Production install: promptlock (a devDependency) is absent, so prepare skips generate.
    const production = await sh(`npm ci --omit=dev ${NPM_FLAGS}`, app);
    expect(production.code, production.stderr).toBe(0);
    expect(production.stdout).toContain('promptlock is not installed (production install): skipping promptlock generate');
    expect(existsSync(path.join(app, 'node_modules/promptlock'))).toBe(false);
    expect(await readFile(path.join(app, 'src/generated/prompts.ts'), 'utf8')).toContain('export function supportReply(');

    // A normal install again: prepare runs generate, which finds the module up to date.
    const again = await sh(`npm ci ${NPM_FLAGS}`, app);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/src\/generated\/prompts\.ts is up to date/);

    // A real failure is not hidden by the guard: a broken lockfile fails the install.
    await writeFile(path.join(app, 'prompts.lock.json'), '{ broken');
    const broken = await sh(`npm install ${NPM_FLAGS}`, app);
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).toMatch(/prompts\.lock\.json/);
  },
  180_000,
);
