/** `sync --frozen`: the lockfile is law; only snapshots missing on disk are fetched, at the locked version. */
import { LockfileError } from '../errors.js';
import type { Selector } from '../package-name.js';
import { readLockedSnapshot } from '../store/read-store.js';
import type { Prompt } from '../types.js';
import { compareConfigWithLock } from './check.js';
import { fetchPrompt } from './fetch-prompt.js';
import { clientPool } from './for-each-prompt.js';
import { exactSelector } from './merge-resolution.js';
import { RunTotals } from './run-totals.js';
import type { FetchedPrompt, ResolvedPrompts, SyncInputs } from './types.js';

export async function resolveFromLockfile(inputs: SyncInputs): Promise<ResolvedPrompts> {
  const { options, view, previous, entries, withFiles, connect } = inputs;
  const { config } = options;
  if (Object.keys(previous.prompts).length === 0 && !(await view.readFile(config.lockfilePath))) {
    throw new LockfileError(`sync --frozen needs a lockfile, and ${config.lockfilePath} does not exist.`, {
      hint: 'Run `promptlock sync` once and commit the lockfile and snapshots.',
    });
  }
  const problems = compareConfigWithLock(entries, previous, config.placeholders);
  if (problems.length > 0) {
    throw new LockfileError(`The config and the lockfile disagree:\n  - ${problems.join('\n  - ')}`, {
      hint: 'Run `promptlock sync` to update the lockfile, then commit it.',
    });
  }
  const names = Object.keys(previous.prompts).sort();
  options.onEvent?.({ type: 'phase', phase: 'fetch', total: names.length });
  let done = 0;
  const totals = new RunTotals(config.limits);
  const kept = new Map<string, Prompt>();
  // The pool of the normal path: bounded by the client, halted by a failing service.
  const pool = clientPool<FetchedPrompt[]>(connect, false);
  const resolveOne = async (name: string): Promise<FetchedPrompt[]> => {
    const entry = previous.prompts[name]!;
    const state = await readLockedSnapshot(view, config.snapshotsDir, name, entry, withFiles, config.limits);
    if (state.ok) {
      kept.set(name, state.prompt);
      options.onEvent?.({ type: 'prompt', name, done: ++done, total: names.length, fetched: false });
      return [];
    }
    const got = await fetchPrompt(totals.watch(await pool.client()), name, entry.selector as Selector | null, {
      withFiles,
      limits: config.limits,
      apiKey: config.apiKey,
      stager: inputs.stager,
      placeholders: entry.placeholders,
      exactVersion: exactSelector(entry.version),
    });
    if (got.entry.integrity !== entry.integrity) {
      throw new LockfileError(`${name}@${entry.version} on the service no longer matches the lockfile (${state.problem}).`, {
        hint: 'Someone changed this version upstream. Run `promptlock sync` to lock what the service has now, and review the diff.',
      });
    }
    totals.countPrompt(got);
    await inputs.onFetched?.(got);
    options.onEvent?.({ type: 'prompt', name, done: ++done, total: names.length, fetched: true });
    return [got];
  };
  for (const name of names) pool.add(() => resolveOne(name));
  const fetched = await pool.finish();
  return { next: previous, fetched: fetched.flat(), kept, partial: false };
}
