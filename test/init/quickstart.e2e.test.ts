/**
 * The README's Quickstart, run as written in a brand-new app: a real `npm pack` of this repository
 * (the README's first block says where it goes, /tmp/promptlock-<version>.tgz, here a temporary
 * folder), the brand-new-app block (`npm init -y`, an ES module package, the tarball and
 * TypeScript installed, `tsc --init --outDir dist`), `promptlock init`, a first `npm install` before
 * any sync, the local-service block with `serve --port 0` printing what the README shows, its two
 * lines put in `.env.local`, `add`; then `tsc` and the rendered prompt, `check`, the commit line,
 * and the installs a team runs: one whose generate really fails, and production (`npm ci
 * --omit=dev`, no promptlock; the first install, before any sync, ran generate above). npm installs from
 * its cache (--prefer-offline). Needs `npm run build`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { BUILT, packPromptlock, REPO, sh } from '../helpers/packed-install.js';
import { removeDir } from '../helpers/project.js';

const README = await readFile(path.join(REPO, 'README.md'), 'utf8');
const NPM_FLAGS = '--prefer-offline --no-audit --no-fund';
const QUICKSTART = README.slice(README.indexOf('\n## Quickstart\n'), README.indexOf('\n## ', README.indexOf('\n## Quickstart\n') + 3));

let work: string | undefined;
let server: ChildProcess | undefined;
afterAll(async () => {
  if (server?.pid !== undefined && server.exitCode === null) process.kill(server.pid, 'SIGTERM');
  if (work) await removeDir(work);
});

/** The ```sh blocks of the Quickstart, as lists of command lines without their comments. */
function blocks(): string[][] {
  return [...QUICKSTART.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) =>
    match[1]!
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line !== ''),
  );
}

function blockWith(command: string): string[] {
  const block = blocks().find((lines) => lines.some((line) => line.startsWith(command)));
  if (!block) throw new Error(`The README's Quickstart has no block with \`${command}\``);
  return block;
}

/** Starts the README's `serve … &` line; resolves everything it printed once it printed the key line. */
function startServe(app: string, line: string): Promise<string> {
  const args = line.replace(/\s*&$/, '').split(/\s+/).slice(2); // npx promptlock
  server = spawn(process.execPath, [path.join(app, 'node_modules/.bin/promptlock'), ...args], {
    cwd: app,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${output}`)), 15_000);
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (/PROMPTLOCK_API_KEY=\S+\n/.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    };
    server!.stdout!.on('data', seen);
    server!.stderr!.on('data', seen);
    server!.on('exit', () => reject(new Error(`serve exited: ${output}`)));
  });
}

it.runIf(BUILT)(
  'runs the Quickstart as written in a brand-new app: tsc passes, the module renders, and every kind of install works',
  async () => {
    work = await mkdtemp(path.join(tmpdir(), 'promptlock-quickstart-'));
    const tarball = await packPromptlock(work);
    const { version } = JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    // The first block packs into /tmp; the install lines take the tarball from there.
    expect(blockWith('npm ci && npm run build && npm pack')[0]).toBe('npm ci && npm run build && npm pack --pack-destination /tmp');
    const written = `/tmp/promptlock-${version}.tgz`;
    expect(QUICKSTART).toContain(`writes ${written}`);
    const app = path.join(work, 'app');
    await mkdir(app);
    const run = async (line: string) => {
      const result = await sh(line.replaceAll(written, tarball), app);
      expect(result.code, `${line}\n${result.stdout}\n${result.stderr}`).toBe(0);
      return result;
    };

    // The brand-new app, as the README sets it up.
    for (const line of blockWith('npm init -y')) await run(line.startsWith('npm install') ? `${line} ${NPM_FLAGS}` : line);
    const account = blockWith('npm install --save-dev /tmp/');
    expect(account[0]).toBe(`npm install --save-dev ${written}`);
    const init = await run(account[1]!);
    expect(account[1]).toBe('npx promptlock init');
    expect(init.stderr).toContain('Wrote .gitignore ignoring .env.local');
    expect(init.stderr).not.toContain('npm pkg set type=module');
    expect(JSON.parse(await readFile(path.join(app, 'package.json'), 'utf8')).scripts.prepare).toMatch(/\|\| promptlock generate$/);

    // A first install before any sync: prepare runs generate, which writes a module with no prompts.
    const first = await run(`npm install ${NPM_FLAGS}`);
    expect(first.stderr).toContain('prompts.lock.json does not exist yet');
    expect(existsSync(path.join(app, 'src/generated/prompts.ts'))).toBe(true);

    // No account: the folder, `serve --port 0` printing what the README shows, its two lines in .env.local, `add`.
    let printed = '';
    for (const line of blockWith('mkdir -p local-prompts/acme/support-reply')) {
      if (line.includes('promptlock serve')) printed = await startServe(app, line);
      else await run(line);
    }
    const shown = /It prints the address[^\n]*\n\n```\n([\s\S]*?)```/.exec(QUICKSTART)![1]!;
    const port = /127\.0\.0\.1:(\d+)/.exec(printed)![1]!;
    expect(printed.split('\n').filter(Boolean).slice(0, 4).sort()).toEqual(
      shown
        .replaceAll(/127\.0\.0\.1:\d+/g, `127.0.0.1:${port}`)
        .split('\n')
        .filter(Boolean)
        .sort(),
    );
    await appendFile(
      path.join(app, '.env.local'),
      `${printed
        .split('\n')
        .filter((line) => /^PROMPTLOCK_\w+=/.test(line))
        .join('\n')}\n`,
    );
    const add = /then run `(npx promptlock add @acme\/support-reply)`/.exec(QUICKSTART)![1]!;
    await run(add);
    expect(JSON.parse(await readFile(path.join(app, 'prompts.lock.json'), 'utf8')).prompts).toHaveProperty(['@acme/support-reply']);

    // The import line the Quickstart gives compiles under tsc --init's settings, and renders.
    const importLine = /`(import \{ supportReply \} from '\.\/generated\/prompts\.js';)`/.exec(QUICKSTART)?.[1];
    expect(importLine, 'the Quickstart says how to import the module').toBeDefined();
    await writeFile(
      path.join(app, 'src/index.ts'),
      `${importLine}\n\nconsole.log(supportReply({ customer_name: 'Ada', topic: 'a late refund' }).content);\n`,
    );
    await run('npx tsc');
    expect(existsSync(path.join(app, 'src/generated/prompts.js')), 'tsc emits nothing beside the module').toBe(false);
    // tsc --init's rootDir is the project (prompts.config.ts is a source too), so the app is dist/src/.
    expect((await run('node dist/src/index.js')).stdout).toBe('Hello Ada, thanks for writing about a late refund.\n');
    await run('npx promptlock check');
    // The Quickstart's commit line names exactly the files that now exist.
    await run(`git init -q && ${account.at(-1)}`);

    // A real failure is not hidden by the guard: a broken lockfile fails the install (promptlock is
    // installed, so npm has nothing to fetch and runs prepare).
    const lockfile = await readFile(path.join(app, 'prompts.lock.json'), 'utf8');
    await writeFile(path.join(app, 'prompts.lock.json'), '{ broken');
    const broken = await sh(`npm install ${NPM_FLAGS}`, app);
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).toMatch(/prompts\.lock\.json/);
    await writeFile(path.join(app, 'prompts.lock.json'), lockfile);

    // Production install: promptlock (a devDependency) is absent, so prepare skips generate.
    const production = await run(`npm ci --omit=dev ${NPM_FLAGS}`);
    expect(production.stdout).toContain('promptlock is not installed (production install): skipping promptlock generate');
    expect(existsSync(path.join(app, 'node_modules/promptlock'))).toBe(false);
    expect(await readFile(path.join(app, 'src/generated/prompts.ts'), 'utf8')).toContain('export function supportReply(');
  },
  240_000,
);
