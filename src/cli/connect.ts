import type { ResolvedConfig } from '../config/types.js';
import type { SyncClient } from '../sync/types.js';
import type { CommandContext } from './context.js';

/** Opens the service client for a command, reporting retries and rate-limit waits in --verbose. */
export function connector(ctx: CommandContext, config: ResolvedConfig, overrides: { retries?: number } = {}): () => Promise<SyncClient> {
  return async () => {
    const { createClient, clientOptionsFor } = await import('../api/index.js');
    return createClient({
      ...clientOptionsFor(config),
      ...overrides,
      onEvent: (event) => ctx.logger.verbose(`service: ${JSON.stringify(event)}`),
    });
  };
}
