/**
 * Runs `task` over `items` with at most `limit` in flight. After a failure no further item starts;
 * it resolves or rejects only once every task started has finished (so nothing runs on behind a
 * caller that has moved on to clean up), rejecting with the first failure.
 */
export async function eachLimited<T>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const index = next++;
      try {
        await task(items[index]!, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
}
