/**
 * One service client for every app of a `--recursive` run (docs/cli.md, "Monorepos"): apps that ask
 * for the same client options (service, key, concurrency, timeout, limits: `clientKey`) share one
 * client, hence one concurrency bound and one rate-limit pacer (docs/service-interface.md, "Rate
 * limits": the limit is the key's, whichever app sends). On top of it a per-run cache: the list
 * is fetched once, and each prompt once per exact package name asked for (`@ws/pkg:v3`, or a
 * floating `@ws/pkg:latest` resolved once for the whole run), however many apps need it.
 */
import { clientKey } from '../api/client-options.js';
import type { ResolvedConfig } from '../config/types.js';
import type { SyncClient } from '../sync/types.js';
import type { Prompt, PromptSummary } from '../types.js';

type Stats = SyncClient['stats'];

/** Opens the real client for a config (the CLI's connector, or the library's). */
export type OpenClient = (config: ResolvedConfig) => Promise<SyncClient>;

export interface SharedClients {
  /**
   * The `connect` of one app's run. Its client's `close()` leaves the shared client open, and its
   * `stats` count only the requests made since the app's run connected.
   */
  connector(config: ResolvedConfig): () => Promise<SyncClient>;
  /** Requests made by every client, all apps together. */
  totals(): Stats;
  close(): Promise<void>;
}

interface Shared {
  client: Promise<SyncClient>;
  list?: Promise<PromptSummary[]>;
  prompts: Map<string, Promise<Prompt>>;
}

export function createSharedClients(open: OpenClient): SharedClients {
  const byService = new Map<string, Shared>();
  const shared = (config: ResolvedConfig): Shared => {
    const key = clientKey(config);
    let entry = byService.get(key);
    if (!entry) {
      entry = {
        client: open(config).then((client) => {
          opened.push(client);
          return client;
        }),
        prompts: new Map(),
      };
      // A failed open is reported by each app that needed it; never an unhandled rejection.
      entry.client.catch(() => undefined);
      byService.set(key, entry);
    }
    return entry;
  };
  const opened: SyncClient[] = [];
  return {
    connector: (config) => async () => {
      const entry = shared(config);
      const client = await entry.client;
      return appView(entry, client);
    },
    totals: () => sumStats(opened.map((c) => c.stats)),
    async close() {
      await Promise.allSettled([...byService.values()].map((s) => s.client));
      await Promise.all(opened.map((c) => c.close()));
    },
  };
}

/** One app's window on the shared client: cached list and prompts, its own request count. */
function appView(entry: Shared, client: SyncClient): SyncClient {
  const base = { ...client.stats };
  // Spread first: any other method of the client passes through unchanged.
  return {
    ...client,
    listAll: () => (entry.list ??= client.listAll()),
    // No pages: the sync reads the one cached listing through listAll, so the run lists once.
    listPages: undefined,
    getPrompt: (packageName, variables) => {
      const key = JSON.stringify([packageName, variables ?? {}]);
      let prompt = entry.prompts.get(key);
      if (!prompt) {
        prompt = client.getPrompt(packageName, variables);
        entry.prompts.set(key, prompt);
      }
      return prompt;
    },
    get stats() {
      const now = client.stats;
      return {
        requests: now.requests - base.requests,
        retries: now.retries - base.retries,
        status429: now.status429 - base.status429,
        waitedMs: now.waitedMs - base.waitedMs,
      };
    },
    close: async () => undefined,
  };
}

function sumStats(all: readonly Stats[]): Stats {
  const total = { requests: 0, retries: 0, status429: 0, waitedMs: 0 };
  for (const s of all) {
    total.requests += s.requests;
    total.retries += s.retries;
    total.status429 += s.status429;
    total.waitedMs += s.waitedMs;
  }
  return total;
}
