import { AggregatePromptlockError, PromptlockError, ServiceError } from '../errors.js';
import { TOTAL_EXCEEDED } from './run-totals.js';
import type { SyncClient } from './types.js';

/**
 * Failures that end the whole run, not one prompt: a rejected or unauthorised key, an address that
 * cannot be reached, one that is not a prompt service, or a run total passed (src/sync/run-totals.ts). Reported once, whatever the prompt count.
 */
function endsRun(error: unknown): boolean {
  return (
    error instanceof ServiceError &&
    (error.status === 401 ||
      error.status === 403 ||
      error.code === 'network' ||
      error.code === 'not_a_service' ||
      error.code === TOTAL_EXCEEDED)
  );
}

/**
 * Failures after which no further prompt is started: the run-ending ones, and those the client gave
 * up on after its retries (a 5xx, a timeout, a reset connection, rate limiting). The service is
 * failing, not the prompt: starting the queued prompts would only repeat each one's full retry
 * cycle (with 40 prompts at concurrency 4 against a service answering 503, 42 s instead of 4).
 * A prompt-level failure (404, a refused prompt) does not stop the others, so all are reported.
 */
export function haltsRun(error: unknown): boolean {
  if (endsRun(error)) return true;
  if (!(error instanceof ServiceError)) return false;
  return (error.status !== undefined && (error.status >= 500 || error.status === 429)) || error.code === 'timeout';
}

/**
 * The values of settled prompt runs, or their failures: one error thrown as is, several as one
 * aggregate, so one bad prompt does not hide the others.
 */
function outcomes<R>(settled: readonly PromiseSettledResult<R>[]): R[] {
  // The same failure reached through several prompts (a shared listing, a run-ending answer) counts once.
  const errors = [...new Set(settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : [])))];
  if (errors.length > 0) {
    const unexpected = errors.find((e) => !(e instanceof PromptlockError));
    if (unexpected) throw unexpected;
    const fatal = errors.find(endsRun);
    if (fatal) throw fatal;
    // The service failing alike for every prompt that ran (the same 503, say): told once.
    const alike = new Set(errors.map((e) => (haltsRun(e) ? `${(e as ServiceError).status}:${(e as ServiceError).code}` : e)));
    if (alike.size === 1) throw errors[0];
    if (errors.length === 1) throw errors[0];
    throw new AggregatePromptlockError(`${errors.length} prompts failed; nothing was written.`, errors as PromptlockError[]);
  }
  return settled.map((s) => (s as PromiseFulfilledResult<R>).value);
}

/** Prompt work fed while it runs (`promptPool`). */
interface PromptPool<R> {
  /** Queues one prompt's work; it starts when fewer than the limit are running. */
  add(run: () => Promise<R>): void;
  /** Changes how many run at once (a finished listing gives back the slot it kept). */
  setLimit(limit: number): void;
  /** Starts nothing more: what is queued is dropped, what runs is waited for by `finish`. */
  stop(): void;
  /**
   * Once everything is added: waits for all of it, then returns the values in the order added or
   * throws the failures (one as is, several as one aggregate). After `stop`, waits for what runs and returns nothing.
   */
  finish(): Promise<R[]>;
}

/**
 * A pool for prompts that arrive over time (the list's pages, docs/performance.md): at most
 * `limit` run at once, so 10,000 listed prompts are 10,000 small closures, not 10,000 requests
 * queued in the client where a later list page would wait behind them. Failures are collected,
 * never unhandled.
 */
function promptPool<R>(limit: number): PromptPool<R> {
  const queue: Array<{ run: () => Promise<R>; index: number }> = [];
  let head = 0;
  const settled: PromiseSettledResult<R>[] = [];
  let added = 0;
  let running = 0;
  let stopped = false;
  // Set by a failure that halts the run (haltsRun): nothing more starts, what runs is reported.
  let halted = false;
  let idle: (() => void) | undefined;
  const quiet = () => running === 0 && (stopped || halted || head === queue.length);
  const settle = async (run: () => Promise<R>, index: number) => {
    try {
      settled[index] = { status: 'fulfilled', value: await run() };
    } catch (reason) {
      settled[index] = { status: 'rejected', reason };
      halted ||= haltsRun(reason);
    }
    running--;
    pump();
    if (quiet()) idle?.();
  };
  const pump = (): void => {
    while (!stopped && !halted && running < limit && head < queue.length) {
      const { run, index } = queue[head]!;
      queue[head++] = undefined as never; // let the closure go
      running++;
      void settle(run, index);
    }
    if (head === queue.length && head > 0) {
      queue.length = 0;
      head = 0;
    }
  };
  return {
    add(run) {
      if (halted) return; // the run has failed: its outcome is already decided
      queue.push({ run, index: added++ });
      pump();
    },
    setLimit(next) {
      limit = Math.max(1, Math.floor(next));
      pump();
    },
    stop() {
      stopped = true;
    },
    async finish() {
      if (!quiet()) await new Promise<void>((resolve) => (idle = resolve));
      return stopped ? [] : outcomes(settled);
    },
  };
}

/** Prompts run at once when the client cannot be opened: only those read from disk can succeed. */
const SLOTS_WITHOUT_CLIENT = 8;

/** The pool of one resolver run, sized by its client (`clientPool`). */
export interface ClientPool<R> extends PromptPool<R> {
  /** The run's client (opened when the pool is made: opening sends no request). */
  client(): Promise<SyncClient>;
  /** The list has ended: the slot kept for it goes back to the prompts. */
  listEnded(): void;
}

/**
 * The one bounded pool both resolvers run their prompts in, with the halt-on-a-failing-service
 * policy (`haltsRun`). Its size is the client's concurrency, read from the client (never from a
 * config: a shared client may have been opened for another app), less one slot kept for the list
 * while it runs, so a page never waits behind the gets it feeds. One prompt runs until the client
 * is open; a client that cannot be opened (no key) fails only the prompts that need it.
 */
export function clientPool<R>(connect: () => Promise<SyncClient>, keepSlotForList: boolean): ClientPool<R> {
  const pool = promptPool<R>(1);
  let reserve = keepSlotForList ? 1 : 0;
  let concurrency: number | undefined;
  const resize = () => {
    if (concurrency !== undefined) pool.setLimit(Math.max(1, concurrency - reserve));
  };
  const opened = connect();
  opened.then(
    (client) => {
      concurrency = client.concurrency;
      resize();
    },
    () => pool.setLimit(SLOTS_WITHOUT_CLIENT),
  );
  return {
    ...pool,
    client: () => opened,
    listEnded() {
      reserve = 0;
      resize();
    },
  };
}
