/**
 * `promptlock mcp`: the locked prompts as an MCP prompt server over stdio (docs/mcp.md), offline
 * from the lockfile and the snapshots, following them as `watch` does: a change to the lockfile, a
 * snapshot or the config is read again after a quiet moment, clients are told
 * (`notifications/prompts/list_changed`) when what they see changed, and a read that fails keeps the
 * last good prompts and says why on stderr (stdout is the protocol's).
 *
 * The protocol is the official SDK's (`@modelcontextprotocol/sdk`, an optional peer dependency,
 * imported only here): promptlock is installed in every app, and the SDK's ~100 packages (an HTTP
 * server among them) are installed only by the teams that run this command.
 */
import type { ResolvedConfig } from '../config/types.js';
import { PromptlockError } from '../errors.js';
import { readLockedPrompts } from '../store/read-store.js';
import { snapshotIntegrity } from '../store/snapshot-format.js';
import { displayPath } from '../util/display-path.js';
import { VERSION } from '../version.js';
import { type FileWatcher, watchFiles } from '../watch/watch-files.js';
import { PromptArgumentError, PromptCatalog } from './prompt-catalog.js';

export interface McpServerOptions {
  /** Loads the config (again, after it changed). */
  loadConfig: () => Promise<ResolvedConfig>;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  log: { info(message: string): void; warn(message: string): void };
  /** Quiet time after a change before the store is read again. @default 100 */
  debounceMs?: number;
}

export interface McpServerHandle {
  /** Resolves when the client closed the connection (stdin ended) or `close` was called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

type Sdk = [
  typeof import('@modelcontextprotocol/sdk/server/index.js'),
  typeof import('@modelcontextprotocol/sdk/server/stdio.js'),
  typeof import('@modelcontextprotocol/sdk/types.js'),
];

async function loadSdk(): Promise<Sdk> {
  try {
    return await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
  } catch (error) {
    throw new PromptlockError('`promptlock mcp` needs the MCP SDK, an optional peer dependency of promptlock that is not installed.', {
      exitCode: 2,
      hint: 'Install it beside promptlock: npm install --save-dev @modelcontextprotocol/sdk',
      cause: error,
    });
  }
}

/** Reads the store into a catalog, saying what it leaves out. */
async function readCatalog(config: ResolvedConfig, log: McpServerOptions['log']): Promise<PromptCatalog> {
  const mismatched: string[] = [];
  const prompts = await readLockedPrompts(
    { rootDir: config.rootDir, lockfilePath: config.lockfilePath, snapshotsDir: config.snapshotsDir, limits: config.limits },
    { mismatched },
  );
  // A snapshot edited by hand is served as generate builds it: its text, and its own integrity
  // (the reviewed one is the lockfile's; docs/traces.md).
  const edited = new Set(mismatched);
  const served = prompts.map((item) =>
    edited.has(item.name) ? { ...item, entry: { ...item.entry, integrity: snapshotIntegrity(item.prompt) } } : item,
  );
  const catalog = new PromptCatalog(served);
  for (const name of mismatched)
    log.warn(`${name}: its snapshot differs from the lockfile (edited by hand?); served as it is, as \`generate\` builds it`);
  for (const { name, reason } of catalog.refused) log.warn(`${name} is not served: ${reason}`);
  return catalog;
}

/** Starts the server on `input`/`output`; it reads the store first, so a missing lockfile fails here. */
export async function startMcpServer(options: McpServerOptions): Promise<McpServerHandle> {
  const { log } = options;
  const sdk = await loadSdk();
  const [{ Server }, { StdioServerTransport }, { ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema, McpError }] = sdk;
  let config = await options.loadConfig();
  let catalog = await readCatalog(config, log);

  const server = new Server(
    { name: 'promptlock', title: 'promptlock: the reviewed prompts of this project', version: VERSION },
    { capabilities: { prompts: { listChanged: true } } },
  );
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: catalog.list() }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    try {
      return catalog.get(request.params.name, request.params.arguments ?? {});
    } catch (error) {
      if (error instanceof PromptArgumentError) throw new McpError(ErrorCode.InvalidParams, error.message);
      throw error;
    }
  });

  let watcher: FileWatcher | undefined;
  let closing: Promise<void> | undefined;
  let settle: () => void = () => {};
  const closed = new Promise<void>((resolve) => (settle = resolve));
  const close = () => {
    closing ??= (async () => {
      await watcher?.close();
      await server.close();
      settle();
    })();
    return closing;
  };

  /** After a change: the store read again, clients told when what they see changed. */
  let reading = Promise.resolve();
  const reread = (configChanged: boolean) => {
    reading = reading.then(async () => {
      try {
        if (configChanged) {
          config = await options.loadConfig();
          watcher?.update(watchedPaths(config));
        }
        const next = await readCatalog(config, log);
        if (next.fingerprint() === catalog.fingerprint()) return;
        catalog = next;
        log.info(`Prompts changed: ${catalog.list().length} served`);
        await server.sendPromptListChanged();
      } catch (error) {
        log.warn(`the store could not be read (${(error as Error).message}); serving the prompts read before`);
      }
    });
  };

  // Said before the first request can be answered: a client that lists the prompts has seen it.
  log.info(`promptlock mcp: ${catalog.list().length} prompts of ${displayPath(config.lockfilePath, config.rootDir)}, on stdio`);
  await server.connect(new StdioServerTransport(options.input as NodeJS.ReadStream, options.output as NodeJS.WriteStream));
  options.input.once('end', () => void close());
  watcher = await watchFiles(watchedPaths(config), {
    debounceMs: options.debounceMs ?? 100,
    onBatch: (configChanged) => reread(configChanged),
    onError: (error) => log.warn(`watching the store failed: ${error.message}`),
  });
  return { closed, close };
}

function watchedPaths(config: ResolvedConfig) {
  return { configPath: config.configPath, lockfilePath: config.lockfilePath, snapshotsDir: config.snapshotsDir };
}
