/**
 * `promptlock check`: for CI, writes nothing. Config vs lockfile, snapshots vs their integrity,
 * variables vs snapshots, module vs snapshots (and the module type-checks); with `remote`, the
 * lockfile vs the service. Every problem is reported; the caller decides the exit code.
 */
import { generateModule, typecheckModule } from '../codegen/index.js';
import type { ResolvedConfig } from '../config/types.js';
import path from 'node:path';
import { PromptlockError } from '../errors.js';
import type { Selector } from '../package-name.js';
import { snapshotPath } from '../store/paths.js';
import { openStoreView } from '../store/commit-changes.js';
import type { LockEntry } from '../store/lockfile-format.js';
import { readLockedSnapshot, readLockfile } from '../store/read-store.js';
import type { Variable } from '../template/index.js';
import type { Prompt } from '../types.js';
import { compareConfigWithLock } from './compare-config.js';
import { fetchPrompt, lockPrompt } from './fetch-prompt.js';
import { listedNames } from './list-names.js';
import { requestedEntries, selectorFor } from './requested-entries.js';
import { orphanSnapshots } from './store-changes.js';
import type { SyncClient } from './sync-client.js';

export interface CheckOptions {
  config: ResolvedConfig;
  remote?: boolean;
  connect?: () => Promise<SyncClient>;
  /** Type-check the module with the TypeScript compiler (about a second). */
  typecheck?: boolean;
}

export interface CheckResult {
  problems: string[];
  checked: number;
}

/** Same names, types, hints and descriptions, in the same order (key order does not matter). */
function sameVariables(a: readonly Variable[], b: readonly Variable[]): boolean {
  const key = (v: Variable) => JSON.stringify([v.name, v.type, v.hint ?? null, v.description ?? null]);
  return a.length === b.length && a.every((v, i) => key(v) === key(b[i]!));
}

/**
 * Every locked field against the snapshot it locks: version, id, variables (integrity is checked
 * when the snapshot is read), the selector's promise (a pinned `vN` answers `vN`, `draft` answers
 * `v0`), and the context files: each locked id is a file item of the snapshot and, with
 * `contextFiles`, each file item is locked.
 */
function lockedFieldProblems(name: string, entry: LockEntry, expected: LockEntry, prompt: Prompt, contextFiles: boolean): string[] {
  const problems: string[] = [];
  const differs = (field: string, locked: unknown, actual: unknown) =>
    problems.push(`${name}: the lockfile's ${field} ${JSON.stringify(locked)} does not match its snapshot (${JSON.stringify(actual)}): run \`promptlock sync\``);
  if (entry.version !== expected.version) differs('version', entry.version, expected.version);
  if (entry.id !== expected.id) differs('id', entry.id, expected.id);
  if (!sameVariables(expected.variables, entry.variables)) problems.push(`${name}: the lockfile's variables do not match its snapshot: run \`promptlock sync\``);
  const pinned = entry.selector === 'draft' ? 'v0' : entry.selector && /^v\d+$/.test(entry.selector) ? entry.selector : undefined;
  if (pinned !== undefined && entry.version !== pinned) {
    problems.push(`${name}: locked for selector ${entry.selector}, but its version is ${entry.version}: run \`promptlock sync\``);
  }
  const fileItems = new Set((prompt.context ?? []).filter((item) => item.type === 'file').map((item) => item.id));
  for (const id of Object.keys(entry.files ?? {})) {
    if (!fileItems.has(id)) problems.push(`${name}: the lockfile locks context file ${JSON.stringify(id)}, which its snapshot does not have: run \`promptlock sync\``);
  }
  if (contextFiles) {
    for (const id of fileItems) {
      if (!entry.files?.[id]) problems.push(`${name}: context file ${JSON.stringify(id)} of its snapshot is not locked: run \`promptlock sync\``);
    }
  }
  return problems;
}

export async function check(options: CheckOptions): Promise<CheckResult> {
  const { config } = options;
  const view = await openStoreView(config.rootDir);
  const lockfile = await readLockfile(view, config.lockfilePath);
  if (!lockfile) {
    return { problems: [`no lockfile at ${config.lockfilePath}: run \`promptlock sync\` and commit it`], checked: 0 };
  }
  const entries = requestedEntries(config.prompts);
  // Each problem names the command that fixes it (test/adoption/check-fixes.e2e.test.ts runs each).
  const problems = compareConfigWithLock(entries, lockfile).map((problem) => `${problem}: run \`promptlock sync\``);
  // A run that failed after its commit point (a read-only or full disk, say) said so when it
  // failed; until a sync completes it, the files on disk are what is checked.
  for (const failed of view.failedCommits) problems.push(`an earlier sync failed while writing its changes (${failed}): run \`promptlock sync\` to complete them`);
  const names = Object.keys(lockfile.prompts).sort();
  const prompts = new Map<string, Prompt>();
  /** The lock entries as the snapshots say they must be: what the module must have been built from. */
  const derived = new Map<string, LockEntry>();
  for (const name of names) {
    const entry = lockfile.prompts[name]!;
    const state = await readLockedSnapshot(view, config.snapshotsDir, name, entry, true, config.limits);
    if (!state.ok) {
      problems.push(`${name}: ${state.problem}: restore it from git, or run \`promptlock sync --frozen\` to download the locked version again`);
      continue;
    }
    prompts.set(name, state.prompt);
    try {
      const expected = lockPrompt(name, entry.selector as Selector | null, state.prompt).entry;
      derived.set(name, { ...expected, ...(entry.exportName === undefined ? {} : { exportName: entry.exportName }), ...(entry.files ? { files: entry.files } : {}) });
      problems.push(...lockedFieldProblems(name, entry, expected, state.prompt, config.contextFiles));
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
    }
  }
  if (prompts.size === names.length && derived.size === names.length) {
    // Built from the entries the snapshots imply, not from the lockfile's word: a lockfile edited
    // to another version or id makes the module differ too.
    const expected = generateModule(names.map((name) => ({ name, entry: derived.get(name)!, prompt: prompts.get(name)! })));
    const actual = (await view.readFile(config.outputPath))?.toString('utf8');
    if (actual === undefined) problems.push(`the module ${config.outputPath} is missing: run \`promptlock generate\``);
    else if (actual !== expected) problems.push(`the module ${config.outputPath} does not match the snapshots: run \`promptlock generate\``);
    else if (options.typecheck !== false) {
      for (const diagnostic of await typecheckModule(actual, config.outputPath)) problems.push(`the module does not type-check: ${diagnostic}`);
    }
  } else {
    problems.push(`the module ${config.outputPath} cannot be checked until the snapshots are fixed`);
  }
  for (const name of await orphanSnapshots(view, config.snapshotsDir, lockfile)) {
    problems.push(`${snapshotPath(config.snapshotsDir, name)} is a snapshot of ${name}, which the lockfile does not have: \`promptlock sync\` removes it`);
  }
  if (options.remote) problems.push(...(await checkRemote(options, lockfile, entries)));
  // Paths as the user sees them: relative to the project.
  const shown = problems.map((problem) => problem.split(`${config.rootDir}${path.sep}`).join(''));
  return { problems: shown, checked: names.length };
}

async function checkRemote(
  options: CheckOptions,
  lockfile: NonNullable<Awaited<ReturnType<typeof readLockfile>>>,
  entries: ReturnType<typeof requestedEntries>,
): Promise<string[]> {
  if (!options.connect) throw new PromptlockError('check --remote needs a service connection.');
  const client = await options.connect();
  const problems: string[] = [];
  try {
    const names = Object.keys(lockfile.prompts).sort();
    // Gathered per prompt, reported in name order: the same drift gives the same report.
    const found = await Promise.all(
      names.map(async (name): Promise<string | undefined> => {
        const entry = lockfile.prompts[name]!;
        try {
          const remote = await fetchPrompt(client, name, entry.selector as Selector | null, { withFiles: false, limits: options.config.limits, apiKey: options.config.apiKey });
          if (remote.entry.integrity === entry.integrity) return undefined;
          return remote.entry.version !== entry.version
            ? `${name}: the service now answers ${remote.entry.version} for ${entry.selector ?? 'no selector'} (locked ${entry.version}): run \`promptlock sync\` to lock it`
            : `${name}: ${entry.version} changed on the service since it was locked: run \`promptlock sync\` to lock it`;
        } catch (error) {
          return `${name}: ${(error as Error).message}`;
        }
      }),
    );
    problems.push(...found.filter((p): p is string => p !== undefined));
    if (entries.length === 0 || entries.some((e) => e.kind === 'glob')) {
      for (const name of listedNames(await client.listAll(), options.config.workspace)) {
        if (!lockfile.prompts[name] && selectorFor(entries, name) !== undefined) problems.push(`${name} is listed by the service but not locked: run \`promptlock sync\``);
      }
    }
  } finally {
    await client.close();
  }
  return problems;
}
