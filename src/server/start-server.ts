import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../errors.js';
import { createFaultInjector } from './fault-injector.js';
import { openFolderSource } from './folder-source.js';
import { createRequestHandler, type ServerState } from './handle-request.js';
import { createKeyRing } from './key-ring.js';
import { createRateLimiter } from './rate-limiter.js';
import { type RunningServer, resolveServerOptions, type ServerOptions, type ServerStats } from './server-options.js';
import { createUrlSigner } from './url-signer.js';

/** In-flight requests get this long to finish on close before their connections are cut. */
const CLOSE_GRACE_MS = 1_000;

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts the local Prompt Service on `options.dir` and resolves once it listens. Throws a
 * `ConfigError` when the folder cannot be served or the address cannot be bound.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const resolved = resolveServerOptions(options);
  const source = await openFolderSource(resolved.dir, (message) => resolved.log?.(`warning: ${message}`));
  const stats: ServerStats = { requests: 0, byRoute: {}, byStatus: {} };
  const state: ServerState = {
    options: resolved,
    source,
    keyRing: createKeyRing(resolved.keys),
    limiter: createRateLimiter(resolved.rateLimits),
    signer: createUrlSigner(resolved.urlTtlSeconds),
    faults: resolved.faults && createFaultInjector(resolved.faults),
    stats,
    baseUrl: '',
  };
  const server = createServer({ keepAlive: true }, createRequestHandler(state));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(resolved.port, resolved.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    source.close();
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      code === 'EADDRINUSE'
        ? `Port ${resolved.port} on ${resolved.host} is already in use.`
        : `Cannot listen on ${resolved.host}:${resolved.port}: ${(error as Error).message}`,
      { hint: code === 'EADDRINUSE' ? 'Pass another --port, or --port 0 for a free one.' : 'Check --host and --port.', cause: error },
    );
  }
  const port = (server.address() as AddressInfo).port;
  state.baseUrl = `http://${hostForUrl(resolved.host)}:${port}`;

  let closing: Promise<void> | undefined;
  return {
    url: state.baseUrl,
    port,
    stats,
    resetStats() {
      stats.requests = 0;
      stats.byRoute = {};
      stats.byStatus = {};
    },
    reload: () => source.reload(),
    counts: () => ({ prompts: source.catalog.packages.length, workspaces: source.catalog.workspaces.size }),
    close() {
      closing ??= new Promise<void>((resolve) => {
        source.close();
        const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        cut.unref();
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
