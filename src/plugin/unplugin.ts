/**
 * The bundler plugin (docs/bundler-plugin.md): one unplugin implementation behind
 * `promptlock/vite`, `/webpack`, `/rollup`, `/esbuild` and `/rspack`. Before the bundler reads the
 * entries it runs `generate` from the committed store (no network, no key); in dev (Vite's dev
 * server, webpack, Rspack or Rollup watch) it watches the config, lockfile and snapshots and regenerates, and the bundler's
 * own watcher and HMR carry the rewritten module to the page. `poll` follows floating selectors
 * like `promptlock watch`, in dev only.
 */
import path from 'node:path';
import { createUnplugin, type UnpluginInstance } from 'unplugin';
import { PromptlockError } from '../errors.js';
import type { Caller } from '../library.js';
import { apiKeyFromEnv, redact } from '../secrets.js';
import type { GenerateCache } from '../sync/generate.js';
import { terminalText } from '../terminal-text.js';
import type { WatchHandle, WatchLog } from '../watch/watch.js';

export interface PromptlockPluginOptions {
  /** A config file, relative to the bundler's root (like `--config`). Default: searched from the root like the CLI does. */
  config?: string | undefined;
  /**
   * In dev only (Vite's dev server, webpack, Rspack or Rollup watch): poll the service for floating
   * selectors and sync what changed, like `promptlock watch`, within the same request budget.
   * Needs PROMPTLOCK_API_KEY. Ignored, with a note, in a production build.
   * @default false
   */
  poll?: boolean | undefined;
  /** Seconds between polls. Default: the config's `watchInterval`. */
  interval?: number | undefined;
  /** The service's per-minute request limit; polling spends at most 20% of it. @default 1000 */
  rateLimit?: number | undefined;
}

const PREFIX = '[promptlock]';
const PLUGIN = 'promptlock';
const POLL_IGNORED = '`poll` is ignored in a production build: the build uses the committed lockfile and snapshots.';

/** What the plugin uses of a webpack or Rspack compiler (both APIs have these hooks). */
interface BundlerCompiler {
  context: string;
  hooks: Record<'beforeRun' | 'watchRun', { tapPromise(name: string, fn: () => Promise<void>): void }> &
    Record<'watchClose', { tap(name: string, fn: () => void): void }> &
    Record<'thisCompilation', { tap(name: string, fn: (compilation: { errors: unknown[] }) => void): void }>;
}

/** A line as the CLI prints it (src/cli/logger.ts): keys masked, no escapes, controls or bidi from outside text. */
function cleanLine(message: string, secrets: readonly (string | undefined)[]): string {
  return `${PREFIX} ${terminalText(redact(message, secrets))}`;
}

/**
 * The error a bundler shows: promptlock's own message and hint, cleaned, under the error's name,
 * with no stack and no cause (webpack-cli prints both): their frames would be promptlock's bundled
 * code, which says nothing to the user.
 */
function buildError(error: unknown, secrets: readonly (string | undefined)[]): Error {
  if (!(error instanceof PromptlockError)) return error instanceof Error ? error : new Error(String(error));
  const failure = new Error(cleanLine(`${error.message}${error.hint ? `\n${error.hint}` : ''}`, secrets));
  failure.name = error.name;
  failure.stack = `${failure.name}: ${failure.message}`;
  return failure;
}

/** The plugin's log, written through the bundler's logger (or the console), every line cleaned. */
function cleanLog(sink: { info(line: string): void; warn(line: string): void }, secrets: readonly (string | undefined)[]): WatchLog {
  return {
    info: (message) => sink.info(cleanLine(message, secrets)),
    success: (message) => sink.info(cleanLine(message, secrets)),
    warn: (message) => sink.warn(cleanLine(message, secrets)),
  };
}

/**
 * One plugin instance's state across the bundler's builds: where it runs, whether it is dev or a
 * production build, its log, the generate cache, and the dev watcher once started.
 */
class PluginSession {
  root = process.cwd();
  /** Keys that must not reach a log line: the environment's, then the config's once loaded. */
  readonly secrets: Array<string | undefined> = [apiKeyFromEnv()];
  log: WatchLog = cleanLog(console, this.secrets);
  /** Vite's command, or whether webpack/Rspack run in watch mode. */
  dev = false;
  production = false;
  /** Set for webpack and Rspack, which generate in their compiler hooks instead of `buildStart`. */
  compilerHooks = false;
  private devWatch: Promise<WatchHandle | undefined> | undefined;
  /** Kept across this plugin's builds (a bundler in watch mode regenerates on each). */
  private reuse: GenerateCache | undefined;
  /** How the plugin calls the library: keys masked, notices and warnings logged. */
  private readonly caller: Caller = {
    onConfig: (config) => {
      if (!this.secrets.includes(config.apiKey)) this.secrets.push(config.apiKey);
    },
    onEvent: (event) => {
      if (event.type === 'info') this.log.info(event.message);
      else if (event.type === 'warn') this.log.warn(event.message);
    },
  };

  constructor(readonly options: PromptlockPluginOptions) {}

  private project() {
    return { cwd: this.root, config: this.options.config };
  }

  async generate(): Promise<void> {
    try {
      const [{ callGenerate }, { createGenerateCache }] = await Promise.all([import('../library.js'), import('../sync/generate.js')]);
      this.reuse ??= createGenerateCache();
      await callGenerate(this.project(), { ...this.caller, cache: this.reuse });
    } catch (error) {
      throw buildError(error, this.secrets);
    }
  }

  /** Starts watching once per dev session (buildStart may run again, per environment or rebuild). */
  startDev(): Promise<WatchHandle | undefined> {
    const { options } = this;
    this.devWatch ??= (async () => {
      const { watch } = await import('../library.js');
      const handle = await watch(
        this.project(),
        {
          log: this.log,
          poll: Boolean(options.poll),
          ...(options.interval ? { intervalSeconds: options.interval } : {}),
          ...(options.rateLimit ? { limitPerMinute: options.rateLimit } : {}),
          settings: { interval: (seconds) => `\`interval: ${seconds}\``, rateLimit: '`rateLimit`' },
        },
        this.caller,
      );
      await handle.ready;
      return handle;
    })();
    return this.devWatch;
  }

  async stopDev(): Promise<void> {
    const running = this.devWatch;
    this.devWatch = undefined;
    await (await running)?.close();
  }

  /**
   * webpack and Rspack: generate before compilation starts (`beforeRun` for a build, `watchRun`
   * for each watch compilation), not in unplugin's `buildStart`, which they run on `make`, in
   * parallel with reading the entries: the bundle would hold the module as it was before.
   */
  onCompiler(compiler: BundlerCompiler): void {
    this.root = compiler.context;
    this.compilerHooks = true;
    compiler.hooks.beforeRun.tapPromise(PLUGIN, async () => {
      this.production = true;
      if (this.options.poll) this.log.info(POLL_IGNORED);
      await this.generate();
    });
    // A failure in watch mode is reported with the compilation and the store is watched anyway, so
    // the bundler keeps watching and the fix, once the dev watcher regenerates, triggers a rebuild.
    let failure: Error | undefined;
    compiler.hooks.watchRun.tapPromise(PLUGIN, async () => {
      this.dev = true;
      failure = undefined;
      try {
        await this.generate();
      } catch (error) {
        failure = error as Error;
      }
      await this.startDev();
    });
    compiler.hooks.thisCompilation.tap(PLUGIN, (compilation) => {
      if (failure) compilation.errors.push(failure);
    });
    compiler.hooks.watchClose.tap(PLUGIN, () => void this.stopDev());
  }
}

export const promptlockPlugin: UnpluginInstance<PromptlockPluginOptions | undefined, false> = createUnplugin<
  PromptlockPluginOptions | undefined,
  false
>((options = {}) => {
  const session = new PluginSession(options);
  return {
    name: 'promptlock',
    async buildStart() {
      if (session.compilerHooks) return; // generated before the compilation started
      if (options.poll && session.production) session.log.info(POLL_IGNORED);
      await session.generate();
      if (session.dev) await session.startDev();
    },
    vite: {
      configResolved(config) {
        session.root = config.root;
        session.dev = config.command === 'serve';
        session.production = config.command === 'build';
        session.log = cleanLog(
          {
            info: (line) => config.logger.info(line, { timestamp: true }),
            warn: (line) => config.logger.warn(line, { timestamp: true }),
          },
          session.secrets,
        );
      },
      // Called when the dev server closes (and at the end of a build, where nothing is watched).
      async closeBundle() {
        await session.stopDev();
      },
    },
    rollup: {
      // Rollup's watch mode is dev (its watcher sees the rewritten module, not the store).
      options() {
        if (this.meta.watchMode) session.dev = true;
        return null;
      },
      async closeWatcher() {
        await session.stopDev();
      },
    },
    webpack: (compiler) => session.onCompiler(compiler),
    rspack: (compiler) => session.onCompiler(compiler),
    esbuild: {
      config(initial) {
        if (initial.absWorkingDir) session.root = path.resolve(initial.absWorkingDir);
      },
    },
  };
});
