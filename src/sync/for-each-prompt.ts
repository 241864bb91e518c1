import { AggregatePromptlockError, PromptlockError, ServiceError } from '../errors.js';

/**
 * Failures that end the whole run, not one prompt: a rejected or unauthorised key, an address that
 * cannot be reached, or one that is not a prompt service. Reported once, whatever the prompt count.
 */
function endsRun(error: unknown): boolean {
  return (
    error instanceof ServiceError &&
    (error.status === 401 || error.status === 403 || error.code === 'network' || error.code === 'not_a_service')
  );
}

/**
 * Runs `run` for every prompt at once (the client bounds the requests), collecting failures so
 * one bad prompt does not hide the others: one error is thrown as is, several as one aggregate.
 */
export async function forEachPrompt<T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const settled = await Promise.allSettled(items.map(run));
  // The same failure reached through several prompts (a shared listing, a run-ending answer) counts once.
  const errors = [...new Set(settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : [])))];
  if (errors.length > 0) {
    const unexpected = errors.find((e) => !(e instanceof PromptlockError));
    if (unexpected) throw unexpected;
    const fatal = errors.find(endsRun);
    if (fatal) throw fatal;
    if (errors.length === 1) throw errors[0];
    throw new AggregatePromptlockError(`${errors.length} prompts failed; nothing was written.`, errors as PromptlockError[]);
  }
  return settled.map((s) => (s as PromiseFulfilledResult<R>).value);
}
