/**
 * The Vite plugin with the real Vite 8 API: a production build bundles only the imported prompt,
 * a broken store fails the build with promptlock's own message, and in the dev server a snapshot
 * edit (or, with `poll`, a version published on the real local service) reaches the page as an
 * HMR update of the module, never a full reload.
 */
import { mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build, createServer, type HotPayload, type ViteDevServer } from 'vite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { loadConfig } from '../../src/config/index.js';
import { PromptlockError } from '../../src/errors.js';
import promptlock from '../../src/plugin/vite.js';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { generate } from '../../src/sync/generate.js';
import { sync } from '../../src/sync/sync.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';
import { waitUntil } from '../helpers/wait-until.js';
import { exampleTexts, MODULE, makeApp } from './app.js';

const use = disposables();
afterEach(() => {
  vi.unstubAllEnvs();
});

async function app(main: string): Promise<string> {
  const dir = await makeApp(main);
  // Removed after the dev servers using it close (disposables run last first).
  use.defer(() => removeDir(dir));
  return dir;
}

async function bundleText(outDir: string): Promise<string> {
  const files = await readdir(path.join(outDir, 'assets'));
  const js = files.filter((file) => file.endsWith('.js'));
  expect(js.length).toBeGreaterThan(0);
  return (await Promise.all(js.map((file) => readFile(path.join(outDir, 'assets', file), 'utf8')))).join('\n');
}

const WELCOME_MAIN = `import { acmeWelcome } from './generated/prompts';\ndocument.querySelector('#app')!.textContent = acmeWelcome().content;\n`;

describe('promptlock/vite in a production build', () => {
  it("generates the module at build start; the bundle holds the imported prompt's text and no other prompt's", async () => {
    const dir = await app(WELCOME_MAIN);
    const outDir = path.join(dir, 'dist');
    await build({ root: dir, configFile: false, logLevel: 'silent', plugins: [promptlock()], build: { outDir } });
    const bundle = await bundleText(outDir);
    const texts = await exampleTexts();
    expect(bundle).toContain(texts.get('acme/welcome.json'));
    const others = [...texts].filter(([file]) => file !== 'acme/welcome.json');
    expect(others.length).toBeGreaterThan(5);
    for (const [file, text] of others) expect(bundle, file).not.toContain(text);
    // The module was written by the plugin, from the committed store.
    expect(await readFile(path.join(dir, MODULE), 'utf8')).toContain('export function acmeWelcome');
  });

  it("fails the build with promptlock's message and hint when the store is broken", async () => {
    const dir = await app(WELCOME_MAIN);
    await writeFile(path.join(dir, 'prompts.lock.json'), '{ "lockfileVersion": 1, "prompts": ');
    const expected = await generate({
      lockfilePath: path.join(dir, 'prompts.lock.json'),
      snapshotsDir: path.join(dir, 'prompts'),
      outputPath: path.join(dir, 'unused.ts'),
      rootDir: dir,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(expected).toBeInstanceOf(PromptlockError);
    const { message, hint } = expected as PromptlockError;
    const failure = await build({
      root: dir,
      configFile: false,
      logLevel: 'silent',
      plugins: [promptlock()],
      build: { outDir: path.join(dir, 'dist') },
    }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).toContain(`[promptlock] ${message}`);
    expect(failure?.message).toContain(hint);
    // Nothing was written: no module, no bundle.
    await expect(readFile(path.join(dir, MODULE), 'utf8')).rejects.toThrow();
  });

  it('ignores poll in a production build, with a note (the default service address is never contacted)', async () => {
    const dir = await app(WELCOME_MAIN);
    const info: string[] = [];
    const quiet = () => {};
    await build({
      root: dir,
      configFile: false,
      customLogger: {
        info: (m: string) => void info.push(m),
        warn: quiet,
        warnOnce: quiet,
        error: quiet,
        clearScreen: quiet,
        hasErrorLogged: () => false,
        hasWarned: false,
      },
      plugins: [promptlock({ poll: true })],
      build: { outDir: path.join(dir, 'dist') },
    });
    expect(info.join('\n')).toContain('[promptlock] `poll` is ignored in a production build');
    expect(await bundleText(path.join(dir, 'dist'))).toContain((await exampleTexts()).get('acme/welcome.json'));
  });

  it('warns of a compiled prompts.js older than the module beside it, which Vite bundles instead', async () => {
    // `import … from './generated/prompts.js'`, as nodenext has TypeScript apps write it.
    const dir = await app(WELCOME_MAIN.replace("'./generated/prompts'", "'./generated/prompts.js'"));
    // What a plain `npx tsc` (no outDir) left from an earlier module: older than the one generated now.
    const compiled = path.join(dir, 'src/generated/prompts.js');
    await mkdir(path.dirname(compiled), { recursive: true });
    await writeFile(compiled, 'export function acmeWelcome() { return { content: "The old welcome" }; }\n');
    const past = new Date(Date.now() - 60_000);
    await utimes(compiled, past, past);
    const warnings: string[] = [];
    const quiet = () => {};
    const logger = {
      info: quiet,
      warn: (m: string) => void warnings.push(m),
      warnOnce: quiet,
      error: quiet,
      clearScreen: quiet,
      hasErrorLogged: () => false,
      hasWarned: false,
    };
    const outDir = path.join(dir, 'dist');
    await build({ root: dir, configFile: false, logLevel: 'warn', customLogger: logger, plugins: [promptlock()], build: { outDir } });
    expect(warnings).toEqual([
      '[promptlock] src/generated/prompts.js is older than the module src/generated/prompts.ts beside it (compiled before the module changed?): a bundler that imports "./prompts.js" takes it instead, with the old prompts. Delete it, and set "outDir" (or "noEmit") in tsconfig.json so that `tsc` writes no JavaScript beside the module.',
    ]);
    // The hazard it warns of: Vite bundled the stale file, not the module.
    expect(await bundleText(outDir)).toContain('The old welcome');

    // Deleted as it says: the module is bundled, and nothing is said.
    await rm(compiled);
    warnings.length = 0;
    await build({ root: dir, configFile: false, logLevel: 'warn', customLogger: logger, plugins: [promptlock()], build: { outDir } });
    expect(warnings).toEqual([]);
    expect(await bundleText(outDir)).toContain((await exampleTexts()).get('acme/welcome.json'));
  });
});

/** A dev server on a free loopback port, recording every payload sent to the page's HMR client. */
async function devServer(dir: string, plugin: ReturnType<typeof promptlock>): Promise<{ server: ViteDevServer; sent: HotPayload[] }> {
  const server = await createServer({
    root: dir,
    configFile: false,
    logLevel: 'silent',
    plugins: [plugin],
    server: { port: 0, host: '127.0.0.1' },
  });
  use.defer(() => server.close());
  const sent: HotPayload[] = [];
  const hot = server.environments.client.hot;
  const send = hot.send.bind(hot) as (payload: HotPayload) => void;
  hot.send = ((payload: HotPayload) => {
    sent.push(payload);
    send(payload);
  }) as typeof hot.send;
  await server.listen();
  // What the browser does on load: request the entry, then the module it imports.
  await server.environments.client.transformRequest('/src/main.ts');
  await server.environments.client.transformRequest(`/${MODULE}`);
  return { server, sent };
}

/** The app accepts updates of the prompts module, as a framework's HMR boundary would. */
const HMR_MAIN = `import { prompts } from './generated/prompts';\nexport const names = Object.keys(prompts);\nif (import.meta.hot) import.meta.hot.accept('./generated/prompts', () => {});\n`;

function moduleUpdate(sent: readonly HotPayload[]): boolean {
  return sent.some((p) => p.type === 'update' && p.updates.some((u) => u.acceptedPath === `/${MODULE}`));
}

describe('promptlock/vite in the dev server', () => {
  it('a snapshot edit regenerates the module and reaches the page as an HMR update, not a full reload', async () => {
    const dir = await app(HMR_MAIN);
    const { server, sent } = await devServer(dir, promptlock());
    const file = path.join(dir, 'prompts/acme/welcome.json');
    const snapshot = JSON.parse(await readFile(file, 'utf8')) as { content: string[] };
    snapshot.content[0] = 'Welcome to Acme, edited during the dev session.';
    await writeFile(file, `${JSON.stringify(snapshot, null, 2)}\n`);
    await waitUntil('an HMR update of the prompts module', () => moduleUpdate(sent));
    expect(sent.filter((p) => p.type === 'full-reload')).toEqual([]);
    const served = await server.environments.client.transformRequest(`/${MODULE}`);
    expect(served?.code).toContain('Welcome to Acme, edited during the dev session.');
  });

  it('with poll, a version published on the service reaches the page through HMR', async () => {
    const served = await writeServedFolder(undefined, 2, 1);
    use.defer(() => removeDir(served));
    const service = await use.serve({ dir: served });
    const dir = await app(HMR_MAIN);
    await rm(path.join(dir, 'prompts'), { recursive: true });
    await rm(path.join(dir, 'prompts.lock.json'));
    await writeFile(
      path.join(dir, 'prompts.config.json'),
      JSON.stringify({ baseUrl: service.url, prompts: ['@bulk/prompt-0000'], output: MODULE }),
    );
    vi.stubEnv('PROMPTLOCK_API_KEY', LOCAL_TEST_KEY);
    const config = await loadConfig({ cwd: dir });
    await sync({ config, connect: async () => createClient({ baseUrl: config.baseUrl, apiKey: config.apiKey }) });
    const { server, sent } = await devServer(dir, promptlock({ poll: true, interval: 0.1, rateLimit: 6000 }));
    expect(await server.environments.client.transformRequest(`/${MODULE}`).then((r) => r?.code)).toContain('revision 1');

    await writeServedFolder(served, 2, 2);
    await service.reload();
    await waitUntil('an HMR update of the prompts module', () => moduleUpdate(sent));
    expect(sent.filter((p) => p.type === 'full-reload')).toEqual([]);
    const code = (await server.environments.client.transformRequest(`/${MODULE}`))?.code;
    expect(code).toContain('revision 2');
    expect(JSON.parse(await readFile(path.join(dir, 'prompts.lock.json'), 'utf8')).prompts['@bulk/prompt-0000'].version).toBe('v2');
  });
});
