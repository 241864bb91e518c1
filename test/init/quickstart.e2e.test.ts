/**
 * The README's Quickstart, run as written in a brand-new app: `npm init -y` (a CommonJS package
 * with npm 11), the packed tarball of this repository, `tsc --init` (module nodenext,
 * verbatimModuleSyntax, exactOptionalPropertyTypes), `promptlock init`, then the local-service
 * steps (`promptlock serve`, `.env.local`, `add`); `tsc` passes and the module renders.
 *
 * Offline and bounded: the tarball is unpacked where `npm install` puts it, and its declared
 * dependencies (and TypeScript) are linked from this repository's node_modules, so nothing is
 * fetched; only a dependency promptlock declares resolves from its folder. Run `npm run build`
 * first (the tarball packs dist/).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { removeDir } from '../helpers/project.js';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../..');
const README = await readFile(path.join(REPO, 'README.md'), 'utf8');

let work: string;
let server: ChildProcess | undefined;
afterAll(async () => {
  if (server?.pid !== undefined && server.exitCode === null) process.kill(server.pid, 'SIGTERM');
  if (work) await removeDir(work);
});

/** The ```sh blocks of the README's Quickstart section, as lists of command lines. */
function quickstartBlocks(): string[][] {
  const section = README.slice(README.indexOf('## Quickstart'), README.indexOf('\n## ', README.indexOf('## Quickstart') + 3));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) =>
    match[1]!
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line !== ''),
  );
}

function blockWith(blocks: string[][], command: string): string[] {
  const block = blocks.find((lines) => lines.includes(command));
  if (!block) throw new Error(`The README's Quickstart has no block with \`${command}\``);
  return block;
}

/** What `npm install --save-dev promptlock typescript` does, from the tarball and without the network. */
async function installPacked(app: string, tarball: string): Promise<void> {
  const modules = path.join(app, 'node_modules');
  await mkdir(path.join(modules, '.bin'), { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', modules]);
  await rename(path.join(modules, 'package'), path.join(modules, 'promptlock'));
  const manifest = JSON.parse(await readFile(path.join(modules, 'promptlock/package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  for (const name of [...Object.keys(manifest.dependencies), 'typescript']) {
    await mkdir(path.dirname(path.join(modules, name)), { recursive: true });
    await symlink(path.join(REPO, 'node_modules', name), path.join(modules, name), 'dir');
  }
  await symlink('../promptlock/bin/promptlock.js', path.join(modules, '.bin/promptlock'));
  await symlink('../typescript/bin/tsc', path.join(modules, '.bin/tsc'));
}

/** Starts the README's `serve … &` line with port 0; resolves the address it prints. */
function startServe(app: string, line: string): Promise<string> {
  const args = line.replace(/\s*&$/, '').replace('--port 4010', '--port 0').split(/\s+/).slice(2); // npx promptlock
  server = spawn(process.execPath, [path.join(app, 'node_modules/.bin/promptlock'), ...args], {
    cwd: app,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${output}`)), 15_000);
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /PROMPTLOCK_BASE_URL=(\S+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    server!.stdout!.on('data', seen);
    server!.stderr!.on('data', seen);
    server!.on('exit', () => reject(new Error(`serve exited: ${output}`)));
  });
}

it('runs the Quickstart as written in a new npm app with tsc --init: tsc passes and the module renders', async () => {
  await access(path.join(REPO, 'dist/cli.js')).catch(() => {
    throw new Error('dist/ is missing: run npm run build first');
  });
  work = await mkdtemp(path.join(tmpdir(), 'promptlock-quickstart-'));
  const packed = JSON.parse((await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: REPO })).stdout) as Array<{
    filename: string;
  }>;
  const tarball = path.join(work, packed[0]!.filename);
  const app = path.join(work, 'app');
  await mkdir(app);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    CI: 'true',
    NO_COLOR: '1',
  };
  for (const name of ['PROMPTLOCK_API_KEY', 'BAYT_API_KEY', 'PROMPTLOCK_BASE_URL']) delete env[name];
  const sh = async (line: string) => {
    try {
      return await run('sh', ['-c', line], { cwd: app, env, timeout: 60_000 });
    } catch (error) {
      const failed = error as { stdout: string; stderr: string };
      throw new Error(`\`${line}\` failed:\n${failed.stdout}\n${failed.stderr}`);
    }
  };

  const blocks = quickstartBlocks();
  for (const line of blockWith(blocks, 'npm init -y')) {
    if (line === 'npm install --save-dev promptlock typescript') await installPacked(app, tarball);
    else await sh(line);
  }
  blockWith(blocks, 'npx promptlock init');
  const init = await sh('npx promptlock init');
  expect(init.stderr).toContain('Wrote .gitignore ignoring .env.local');
  expect(init.stderr).not.toContain('npm pkg set type=module');
  expect(await readFile(path.join(app, '.gitignore'), 'utf8')).toContain('.env.local\n');

  // The local service: its folder, `serve` on a free port instead of 4010, .env.local, `add`.
  let url = '';
  for (const line of blockWith(blocks, 'mkdir -p local-prompts/acme/support-reply')) {
    if (line.includes('promptlock serve')) url = await startServe(app, line);
    else await sh(line.replace('http://127.0.0.1:4010', url));
  }
  expect(JSON.parse(await readFile(path.join(app, 'prompts.lock.json'), 'utf8')).prompts).toHaveProperty(['@acme/support-reply']);

  const importLine = /`(import \{ supportReply \} from '\.\/generated\/prompts\.js';)`/.exec(README)?.[1];
  expect(importLine, 'the Quickstart says how to import the module').toBeDefined();
  await writeFile(
    path.join(app, 'src/index.ts'),
    `${importLine}\n\nconsole.log(supportReply({ customer_name: 'Ada', topic: 'a late refund' }).content);\n`,
  );
  await sh('npx tsc');
  // The compiled app goes to the outDir the Quickstart gives, never beside the generated module.
  await expect(access(path.join(app, 'src/generated/prompts.js'))).rejects.toThrow(/ENOENT/);
  const rendered = await sh('node dist/src/index.js');
  expect(rendered.stdout).toBe('Hello Ada, thanks for writing about a late refund.\n');
});
