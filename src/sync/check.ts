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

export async function check(options: CheckOptions): Promise<CheckResult> {
  const { config } = options;
  const view = await openStoreView(config.rootDir);
  const lockfile = await readLockfile(view, config.lockfilePath);
  if (!lockfile) {
    return { problems: [`no lockfile at ${config.lockfilePath}: run \`promptlock sync\` and commit it`], checked: 0 };
  }
  const entries = requestedEntries(config.prompts);
  const problems = compareConfigWithLock(entries, lockfile);
  const names = Object.keys(lockfile.prompts).sort();
  const prompts = new Map<string, Prompt>();
  for (const name of names) {
    const entry = lockfile.prompts[name]!;
    const state = await readLockedSnapshot(view, config.snapshotsDir, name, entry, true, config.limits);
    if (!state.ok) {
      problems.push(`${name}: ${state.problem}`);
      continue;
    }
    prompts.set(name, state.prompt);
    try {
      const expected = lockPrompt(name, entry.selector as Selector | null, state.prompt).entry.variables;
      if (!sameVariables(expected, entry.variables)) problems.push(`${name}: the lockfile's variables do not match its snapshot`);
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
    }
  }
  if (prompts.size === names.length) {
    const expected = generateModule(names.map((name) => ({ name, entry: lockfile.prompts[name]!, prompt: prompts.get(name)! })));
    const actual = (await view.readFile(config.outputPath))?.toString('utf8');
    if (actual === undefined) problems.push(`the module ${config.outputPath} is missing: run \`promptlock generate\``);
    else if (actual !== expected) problems.push(`the module ${config.outputPath} does not match the snapshots: run \`promptlock generate\``);
    else if (options.typecheck !== false) {
      for (const diagnostic of await typecheckModule(actual, config.outputPath)) problems.push(`the module does not type-check: ${diagnostic}`);
    }
  } else {
    problems.push(`the module ${config.outputPath} cannot be checked until the snapshots are fixed`);
  }
  for (const name of await orphanSnapshots(config.snapshotsDir, lockfile)) {
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
            ? `${name}: the service now answers ${remote.entry.version} for ${entry.selector ?? 'no selector'} (locked ${entry.version})`
            : `${name}: ${entry.version} changed on the service since it was locked`;
        } catch (error) {
          return `${name}: ${(error as Error).message}`;
        }
      }),
    );
    problems.push(...found.filter((p): p is string => p !== undefined));
    if (entries.length === 0 || entries.some((e) => e.kind === 'glob')) {
      for (const name of listedNames(await client.listAll(), options.config.workspace)) {
        if (!lockfile.prompts[name] && selectorFor(entries, name) !== undefined) problems.push(`${name} is listed by the service but not locked`);
      }
    }
  } finally {
    await client.close();
  }
  return problems;
}
