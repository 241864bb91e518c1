/**
 * The service as one poll has observed it, for the sync that follows the poll. A change found by a
 * poll is synced without asking the service again: the listing and the prompts the poll fetched are
 * answered from what it saw, and locked prompts it did not check this time are answered from their
 * intact snapshots (what the service said when it was last asked). Only what was never observed
 * (a new prompt, a damaged snapshot) costs a request, so the sync stays within the poll's budget
 * even when it is a full sync that prunes vanished prompts.
 */
import type { ResolvedConfig } from '../config/types.js';
import { basePackageName, parsePackageName } from '../package-name.js';
import type { StoreView } from '../store/journal.js';
import type { Lockfile } from '../store/lockfile-format.js';
import { readLockedSnapshot } from '../store/read-store.js';
import type { SyncClient } from '../sync/types.js';
import type { Prompt, PromptSummary } from '../types.js';

export interface Observations {
  /** The last listing, if one was made. */
  listing: PromptSummary[] | undefined;
  /** Prompts fetched this poll, by the exact name asked (with its selector, if any). */
  prompts: Map<string, Prompt>;
  /** Names asked this poll that the service did not find (404): never answered from the store. */
  missing: Set<string>;
}

export interface PollClientOptions {
  service: SyncClient;
  observed: Observations;
  config: Pick<ResolvedConfig, 'snapshotsDir' | 'limits'>;
  view: StoreView;
  lockfile: Lockfile | undefined;
}

/** A client whose answers come from observations first; `close` leaves the service open. */
export function pollClient(options: PollClientOptions): SyncClient {
  const { service, observed } = options;

  const fromStore = async (asked: string): Promise<Prompt | undefined> => {
    const parsed = parsePackageName(asked);
    const entry = parsed && options.lockfile?.prompts[basePackageName(parsed)];
    // Only for the selector it was locked at: a config that now asks for another one needs the service.
    if (!parsed || !entry || (entry.selector ?? undefined) !== parsed.selector) return undefined;
    const state = await readLockedSnapshot(
      options.view,
      options.config.snapshotsDir,
      basePackageName(parsed),
      entry,
      false,
      options.config.limits,
    );
    return state.ok ? state.prompt : undefined;
  };

  return {
    async listAll() {
      observed.listing ??= await service.listAll();
      return observed.listing;
    },
    async getPrompt(asked, variables) {
      if (variables) return service.getPrompt(asked, variables);
      if (observed.missing.has(asked)) return service.getPrompt(asked);
      const seen = observed.prompts.get(asked) ?? (await fromStore(asked));
      return seen ?? service.getPrompt(asked);
    },
    getContextDownloadUrl: (id) => service.getContextDownloadUrl(id),
    downloadFileTo: (url, opts, sink) => service.downloadFileTo(url, opts, sink),
    get stats() {
      return service.stats;
    },
    concurrency: service.concurrency,
    close: async () => {},
  };
}
