/**
 * The totals of one run (docs/security.md, "Limits"): every prompt it fetches and every context
 * file it downloads count against `limits.totalBytes` and `limits.totalContextFileBytes`, so a
 * service cannot make one run hold or write without bound by sending many prompts or files that
 * are each under their own limit. A download is counted as its bytes arrive and stopped at the
 * total, not after. And the run's time with the service is bounded by `limits.runSeconds`: each
 * request has its own deadline, but a service answering every request just in time (a thousand
 * slow pages, waits it asks for) must not hold a run for hours.
 */
import { ServiceError } from '../errors.js';
import { describeLimit, type Limits } from '../limits.js';
import { terminalText } from '../terminal-text.js';
import type { PromptSummary } from '../types.js';
import type { FetchedPrompt, SyncClient } from './types.js';

/** The error code of a run total exceeded: it ends the run, told once (src/sync/for-each-prompt.ts). */
export const TOTAL_EXCEEDED = 'total_too_large';

export class RunTotals {
  private promptBytes = 0;
  private fileBytes = 0;
  /** When the run's time with the service is up (epoch milliseconds). */
  private readonly deadline: number;

  constructor(private readonly limits: Readonly<Limits>) {
    this.deadline = Date.now() + limits.runSeconds * 1000;
  }

  /** `work`, or the run-time error once the run's deadline passes first (what it started is left to its own deadline). */
  private bounded<T>(work: () => Promise<T>): Promise<T> {
    const left = this.deadline - Date.now();
    if (left <= 0) return Promise.reject(this.timeUp());
    let timer: NodeJS.Timeout | undefined;
    const timeUp = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(this.timeUp()), left);
    });
    return Promise.race([work(), timeUp]).finally(() => clearTimeout(timer));
  }

  private timeUp(): ServiceError {
    return exceeded(`This run has spent more than ${this.limits.runSeconds} seconds with the service`, 'runSeconds', this.limits);
  }

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

  /**
   * The client as the run uses it: every call ends by the run's deadline, and downloads count
   * against the run's total as their bytes arrive.
   */
  watch(client: SyncClient): SyncClient {
    const downloadFileTo: SyncClient['downloadFileTo'] = (url, options, sink) => {
      let attempt = 0;
      return this.bounded(() =>
        client.downloadFileTo(url, options, {
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
        }),
      );
    };
    const source = client.listPages?.bind(client);
    const bounded = this.bounded.bind(this);
    return Object.assign(Object.create(client) as SyncClient, {
      downloadFileTo,
      listAll: () => bounded(() => client.listAll()),
      getPrompt: (name: string, variables?: Record<string, string>) => bounded(() => client.getPrompt(name, variables)),
      getContextDownloadUrl: (id: string) => bounded(() => client.getContextDownloadUrl(id)),
      ...(source
        ? {
            listPages: (): AsyncIterable<PromptSummary[]> => ({
              [Symbol.asyncIterator]: () => {
                const pages = source()[Symbol.asyncIterator]();
                return {
                  next: () => bounded(() => pages.next()),
                  return: async () => (await pages.return?.()) ?? { done: true, value: undefined },
                };
              },
            }),
          }
        : {}),
    });
  }
}

function exceeded(what: string, name: 'totalBytes' | 'totalContextFileBytes' | 'runSeconds', limits: Readonly<Limits>): ServiceError {
  return new ServiceError(`${what}, over the limit of ${describeLimit(name, limits)}; stopped there. Nothing was written.`, {
    code: TOTAL_EXCEEDED,
    hint: `Raise limits.${name} in the config if the service is trusted and this much is expected, or sync fewer prompts at once (\`promptlock sync <name>\`).`,
  });
}
