/**
 * The client owns its concurrency: apps of a `--recursive` run share a client only when they ask
 * for the same client options (`clientKey`), so an app never runs with another app's concurrency,
 * and what the sync reads is the client's (src/sync/for-each-prompt.ts). The real client.
 */

import { describe, expect, it } from 'vitest';
import { clientOptionsFor } from '../../src/api/client-options.js';
import { createClient } from '../../src/api/index.js';
import type { ResolvedConfig } from '../../src/config/types.js';
import { DEFAULT_LIMITS } from '../../src/limits.js';
import { createSharedClients } from '../../src/workspace/shared-client.js';

const KEY = `sk_live_${'SharedKey'.padEnd(38, 's')}wxyz`;
const app = (concurrency: number, extra: Partial<ResolvedConfig> = {}) =>
  ({ baseUrl: 'http://127.0.0.1:9', apiKey: KEY, concurrency, timeout: 30_000, limits: { ...DEFAULT_LIMITS }, ...extra }) as ResolvedConfig;

describe('shared clients', () => {
  it('an app with concurrency 64 beside one with 4: two clients, each with its own concurrency', async () => {
    const shared = createSharedClients(async (config) => createClient(clientOptionsFor(config)));
    try {
      const four = await shared.connector(app(4))();
      const sixtyFour = await shared.connector(app(64))();
      expect([four.concurrency, sixtyFour.concurrency]).toEqual([4, 64]);
    } finally {
      await shared.close();
    }
  });

  it('apps asking for the same options share one client', async () => {
    let opened = 0;
    const shared = createSharedClients(async (config) => {
      opened++;
      return createClient(clientOptionsFor(config));
    });
    try {
      await shared.connector(app(8))();
      await shared.connector(app(8, { rootDir: '/elsewhere' }))();
      await shared.connector(app(8, { timeout: 5_000 }))();
      expect(opened).toBe(2);
    } finally {
      await shared.close();
    }
  });

  it('a client without a concurrency option reports the default', async () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:9' });
    expect(client.concurrency).toBe(16);
    await client.close();
  });
});
