/**
 * The bundler plugin (docs/bundler-plugin.md): one unplugin implementation behind
 * `promptlock/vite`, `/webpack`, `/rollup`, `/esbuild` and `/rspack`. At build start it runs
 * `generate` from the committed store (no network, no key); in dev (Vite's dev server, webpack or
 * Rspack watch) it watches the config, lockfile and snapshots and regenerates, and the bundler's
 * own watcher and HMR carry the rewritten module to the page. `poll` follows floating selectors
 * like `promptlock watch`, in dev only.
 */
import path from 'node:path';
import { createUnplugin, type UnpluginInstance } from 'unplugin';
import type { ResolvedConfig } from '../config/types.js';
import { PromptlockError } from '../errors.js';
import type { GenerateCache } from '../sync/generate.js';
import type { WatchHandle, WatchLog } from '../watch/watch.js';

export interface PromptlockPluginOptions {
  /** A config file, relative to the bundler's root (like `--config`). Default: searched from the root like the CLI does. */
  config?: string;
  /**
   * In dev only (Vite's dev server, webpack or Rspack watch): poll the service for floating
   * selectors and sync what changed, like `promptlock watch`, within the same request budget.
   * Needs PROMPTLOCK_API_KEY. Ignored, with a note, in a production build.
   * @default false
   */
  poll?: boolean;
  /** Seconds between polls. Default: the config's `watchInterval`. */
  interval?: number;
  /** The service's per-minute request limit; polling spends at most 20% of it. @default 1000 */
  rateLimit?: number;
}

/** Retries of one request while polling: the next poll is the retry (as in `promptlock watch`). */
const POLL_RETRIES = 2;
const PREFIX = '[promptlock]';

/** The error a bundler shows: promptlock's own message and hint, under the error's name. */
function buildError(error: unknown): Error {
  if (!(error instanceof PromptlockError)) return error instanceof Error ? error : new Error(String(error));
  const failure = new Error(`${PREFIX} ${error.message}${error.hint ? `\n${error.hint}` : ''}`, { cause: error });
  failure.name = error.name;
  return failure;
}

function consoleLog(): WatchLog {
  return {
    info: (message) => console.info(`${PREFIX} ${message}`),
    success: (message) => console.info(`${PREFIX} ${message}`),
    warn: (message) => console.warn(`${PREFIX} ${message}`),
  };
}

export const promptlockPlugin: UnpluginInstance<PromptlockPluginOptions | undefined, false> = createUnplugin<
  PromptlockPluginOptions | undefined,
  false
>((options = {}) => {
  let root = process.cwd();
  let log: WatchLog = consoleLog();
  /** Vite's command, or whether webpack/Rspack run in watch mode. */
  let dev = false;
  let production = false;
  let devWatch: Promise<WatchHandle | undefined> | undefined;
  /** Kept across this plugin's builds (a bundler in watch mode regenerates on each). */
  let reuse: GenerateCache | undefined;

  const loadConfig = async (): Promise<ResolvedConfig> => {
    const { loadConfig: load } = await import('../config/load-config.js');
    return load({ cwd: root, ...(options.config ? { configPath: options.config } : {}) });
  };

  const generateNow = async (): Promise<void> => {
    try {
      const [{ generate, createGenerateCache, generateOptionsFor }, { finishInterruptedRun }, { storeFilesOf }] = await Promise.all([
        import('../sync/generate.js'),
        import('../store/finish-interrupted-run.js'),
        import('../sync/store-files.js'),
      ]);
      const config = await loadConfig();
      if (await finishInterruptedRun(storeFilesOf(config), 'generate')) log.info('Completed the writes of an interrupted sync first.');
      reuse ??= createGenerateCache();
      const result = await generate({ ...generateOptionsFor(config), cache: reuse });
      for (const name of result.mismatched) {
        log.warn(
          `the snapshot of ${name} does not match the lockfile (edited by hand?): the module was built from it as it is. \`promptlock check\` fails until \`promptlock sync\` restores it.`,
        );
      }
    } catch (error) {
      throw buildError(error);
    }
  };

  /** Starts watching once per dev session (buildStart may run again, per environment or rebuild). */
  const startDev = (): Promise<WatchHandle | undefined> => {
    devWatch ??= (async () => {
      const [{ startWatch }, { createClient, clientOptionsFor }] = await Promise.all([
        import('../watch/watch.js'),
        import('../api/index.js'),
      ]);
      const handle = await startWatch({
        loadConfig,
        connect: async (config) => createClient({ ...clientOptionsFor(config), retries: POLL_RETRIES }),
        log,
        poll: Boolean(options.poll),
        ...(options.interval ? { intervalSeconds: options.interval } : {}),
        ...(options.rateLimit ? { limitPerMinute: options.rateLimit } : {}),
      });
      await handle.ready;
      return handle;
    })();
    return devWatch;
  };

  const stopDev = async (): Promise<void> => {
    const running = devWatch;
    devWatch = undefined;
    await (await running)?.close();
  };

  /** webpack and Rspack share these hooks: watch mode is dev, a plain run is a production build. */
  const onCompiler = (compiler: {
    context: string;
    hooks: Record<'watchRun' | 'run' | 'watchClose', { tap(name: string, fn: () => void): void }>;
  }): void => {
    root = compiler.context;
    compiler.hooks.watchRun.tap('promptlock', () => {
      dev = true;
    });
    compiler.hooks.run.tap('promptlock', () => {
      production = true;
    });
    compiler.hooks.watchClose.tap('promptlock', () => void stopDev());
  };

  return {
    name: 'promptlock',
    async buildStart() {
      if (options.poll && production)
        log.info('`poll` is ignored in a production build: the build uses the committed lockfile and snapshots.');
      await generateNow();
      if (dev) await startDev();
    },
    vite: {
      configResolved(config) {
        root = config.root;
        dev = config.command === 'serve';
        production = config.command === 'build';
        log = {
          info: (message) => config.logger.info(`${PREFIX} ${message}`, { timestamp: true }),
          success: (message) => config.logger.info(`${PREFIX} ${message}`, { timestamp: true }),
          warn: (message) => config.logger.warn(`${PREFIX} ${message}`, { timestamp: true }),
        };
      },
      // Called when the dev server closes (and at the end of a build, where nothing is watched).
      async closeBundle() {
        await stopDev();
      },
    },
    webpack: (compiler) => onCompiler(compiler),
    rspack: (compiler) => onCompiler(compiler),
    esbuild: {
      config(initial) {
        if (initial.absWorkingDir) root = path.resolve(initial.absWorkingDir);
      },
    },
  };
});
