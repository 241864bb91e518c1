/**
 * The totals of one run (docs/security.md, "Limits"): every prompt it fetches and every context
 * file it downloads count against `limits.totalBytes` and `limits.totalContextFileBytes`, so a
 * service cannot make one run hold or write without bound by sending many prompts or files that
 * are each under their own limit. A download is counted as its bytes arrive and stopped at the
 * total, not after.
 */
import { ServiceError } from '../errors.js';
import { describeLimit, type Limits } from '../limits.js';
import { terminalText } from '../terminal-text.js';
import type { FetchedPrompt, SyncClient } from './types.js';

/** The error code of a run total exceeded: it ends the run, told once (src/sync/for-each-prompt.ts). */
export const TOTAL_EXCEEDED = 'total_too_large';

export class RunTotals {
  private promptBytes = 0;
  private fileBytes = 0;

  constructor(private readonly limits: Readonly<Limits>) {}

  /** Counts a fetched prompt's snapshot; throws once the run's prompts together pass the limit. */
  countPrompt(fetched: Pick<FetchedPrompt, 'name' | 'snapshot'>): void {
    this.promptBytes += Buffer.byteLength(fetched.snapshot ?? '');
    if (this.promptBytes <= this.limits.totalBytes) return;
    throw exceeded(
      `The prompts this run fetched total more than ${this.limits.totalBytes} bytes (${fetched.name} brings them to ${this.promptBytes})`,
      'totalBytes',
      this.limits,
    );
  }

  /** The client, its downloads counted against the run's total as their bytes arrive. */
  watch(client: SyncClient): SyncClient {
    const downloadFileTo: SyncClient['downloadFileTo'] = (url, options, sink) => {
      let attempt = 0;
      return client.downloadFileTo(url, options, {
        reset: async () => {
          // A retry starts the file afresh: what the failed attempt counted is given back.
          this.fileBytes -= attempt;
          attempt = 0;
          await sink.reset();
        },
        write: async (chunk) => {
          attempt += chunk.length;
          this.fileBytes += chunk.length;
          if (this.fileBytes > this.limits.totalContextFileBytes) {
            // The query is the pre-signed credential: never shown.
            const shown = terminalText(url.split('?')[0]!).slice(0, 200);
            throw exceeded(
              `The context files this run downloaded total more than ${this.limits.totalContextFileBytes} bytes (at ${shown})`,
              'totalContextFileBytes',
              this.limits,
            );
          }
          await sink.write(chunk);
        },
      });
    };
    return Object.assign(Object.create(client) as SyncClient, { downloadFileTo });
  }
}

function exceeded(what: string, name: 'totalBytes' | 'totalContextFileBytes', limits: Readonly<Limits>): ServiceError {
  return new ServiceError(`${what}, over the limit of ${describeLimit(name, limits)}; stopped there. Nothing was written.`, {
    code: TOTAL_EXCEEDED,
    hint: `Raise limits.${name} in the config if the service is trusted and this much is expected, or sync fewer prompts at once (\`promptlock sync <name>\`).`,
  });
}
