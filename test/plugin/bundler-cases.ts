/**
 * The cases every bundler without a dev server of its own (webpack, Rspack, Rollup) passes, run
 * against the real bundler: the module is generated before the bundler reads the entries (a
 * missing module builds the first time, a stale one is never bundled), only the imported prompt is
 * bundled, a broken store fails the build with promptlock's message and hint and no stack frames
 * of promptlock's code, and in watch mode a snapshot edit reaches a rebuilt bundle.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PromptlockError } from '../../src/errors.js';
import { generate } from '../../src/sync/generate.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';
import { waitUntil } from '../helpers/wait-until.js';
import { exampleTexts, makeApp } from './app.js';

/** A plain-JS app: none of these bundlers loads TypeScript without a loader. */
export const JS_MODULE = 'src/generated/prompts.js';
const MAIN = `import { acmeWelcome } from './generated/prompts.js';\nconsole.log(acmeWelcome().content);\n`;
const WELCOME = 'acme/welcome.json';

interface BundlerWatch {
  /** The text of the last bundle written, or undefined before the first. */
  bundle(): Promise<string | undefined>;
  close(): Promise<void>;
}

export interface Bundler {
  /** Builds `src/main.js` of the app in `dir` once (a production build); the bundle's text. */
  build(dir: string): Promise<string>;
  /** Starts the bundler's watch mode on the app in `dir`. */
  watch(dir: string): Promise<BundlerWatch>;
  /** Whether watch mode started on a broken store rebuilds once it is fixed (webpack, Rspack). */
  recoversInWatch?: boolean;
}

/** The error `generate` itself throws for the app's store. */
async function generateError(dir: string): Promise<PromptlockError> {
  const error = await generate({
    lockfilePath: path.join(dir, 'prompts.lock.json'),
    snapshotsDir: path.join(dir, 'prompts'),
    outputPath: path.join(dir, 'unused.js'),
    rootDir: dir,
  }).then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(PromptlockError);
  return error as PromptlockError;
}

export function bundlerCases(name: string, bundler: Bundler): void {
  const use = disposables();
  const app = async (): Promise<string> => {
    const dir = await makeApp(MAIN, { output: JS_MODULE, main: 'src/main.js' });
    use.defer(() => removeDir(dir));
    return dir;
  };

  describe(`${name}: a production build`, () => {
    it("generates the missing module before the entries are read; the bundle holds the imported prompt's text and no other's", async () => {
      const dir = await app();
      const bundle = await bundler.build(dir);
      const texts = await exampleTexts();
      expect(bundle).toContain(texts.get(WELCOME));
      const others = [...texts].filter(([file]) => file !== WELCOME);
      expect(others.length).toBeGreaterThan(5);
      for (const [file, text] of others) expect(bundle, file).not.toContain(text);
    });

    it('bundles the regenerated module, never the stale one on disk', async () => {
      const dir = await app();
      await mkdir(path.join(dir, 'src/generated'));
      await writeFile(path.join(dir, JS_MODULE), 'export const acmeWelcome = () => ({ content: "STALE module text" });\n');
      const bundle = await bundler.build(dir);
      expect(bundle).not.toContain('STALE module text');
      expect(bundle).toContain((await exampleTexts()).get(WELCOME));
      expect(await readFile(path.join(dir, JS_MODULE), 'utf8')).toContain('export function acmeWelcome');
    });

    it("fails on a broken store with promptlock's message and hint, and no stack frames of promptlock's code", async () => {
      const dir = await app();
      await writeFile(path.join(dir, 'prompts.lock.json'), '{ "lockfileVersion": 1, "prompts": ');
      const { message, hint } = await generateError(dir);
      const failure = await bundler.build(dir).then(
        () => undefined,
        (error: Error) => error,
      );
      expect(failure?.message).toContain(`[promptlock] ${message}`);
      expect(failure?.message).toContain(hint);
      expect(failure?.stack ?? '').not.toMatch(/\n\s+at /);
      await expect(readFile(path.join(dir, JS_MODULE), 'utf8')).rejects.toThrow();
    });
  });

  describe(`${name}: watch mode`, () => {
    it('a snapshot edit regenerates the module and the bundler rebuilds with it', async () => {
      const dir = await app();
      const watching = await bundler.watch(dir);
      use.defer(() => watching.close());
      const welcome = (await exampleTexts()).get(WELCOME)!;
      await waitUntil('the first bundle', async () => (await watching.bundle())?.includes(welcome));
      const file = path.join(dir, 'prompts', WELCOME);
      const snapshot = JSON.parse(await readFile(file, 'utf8')) as { content: string[] };
      snapshot.content[0] = 'Welcome to Acme, edited while watching.';
      await writeFile(file, `${JSON.stringify(snapshot, null, 2)}\n`);
      await waitUntil('a rebuilt bundle', async () => (await watching.bundle())?.includes('Welcome to Acme, edited while watching.'));
      await watching.close();
    });

    it.runIf(bundler.recoversInWatch)('started on a broken lockfile, it keeps watching and builds once the lockfile is fixed', async () => {
      const dir = await app();
      const lockfile = path.join(dir, 'prompts.lock.json');
      const good = await readFile(lockfile, 'utf8');
      await writeFile(lockfile, '{ "lockfileVersion": 1, "prompts": ');
      const watching = await bundler.watch(dir);
      use.defer(() => watching.close());
      const welcome = (await exampleTexts()).get(WELCOME)!;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      // webpack emits a bundle whose import of the missing module throws.
      expect((await watching.bundle()) ?? '').not.toContain(welcome);
      await writeFile(lockfile, good);
      await waitUntil('a bundle once the lockfile is fixed', async () => (await watching.bundle())?.includes(welcome));
      await watching.close();
    });
  });
}
