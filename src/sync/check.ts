/**
 * `promptlock check`: for CI, writes nothing. Config vs lockfile, snapshots vs their integrity,
 * variables vs snapshots, module vs snapshots (and the module type-checks); with `remote`, the
 * lockfile vs the service. Every problem is reported as a `CheckProblem`; the caller formats
 * them (`describeProblem`) and decides the exit code.
 */
import path from 'node:path';
import { generateModuleFiles, typecheckModule } from '../codegen/index.js';
import { readingFor } from '../config/placeholder-reading.js';
import { type RequestedEntry, requestedEntries, selectorFor } from '../config/prompt-entry.js';
import type { ResolvedConfig } from '../config/types.js';
import { LockfileError, PromptlockError } from '../errors.js';
import { parsePackageName, type Selector } from '../package-name.js';
import type { LockEntry, Lockfile } from '../store/lockfile-format.js';
import { snapshotPath } from '../store/paths.js';
import { DAMAGED_SNAPSHOT_FIX, readLockedSnapshot, readLockfile } from '../store/read-store.js';
import { openStoreView, type StoreView } from '../store/store-view.js';
import type { Variable } from '../template/index.js';
import type { Prompt } from '../types.js';
import { fetchPrompt, lockPrompt } from './fetch-prompt.js';
import { clientPool, haltsRun } from './for-each-prompt.js';
import { listedNames } from './list-names.js';
import { type PlaceholderNote, placeholderNote } from './placeholder-notes.js';
import { RunTotals } from './run-totals.js';
import { orphanSnapshots, unaccountedFiles } from './store-changes.js';
import { storeFilesOf } from './store-files.js';
import type { CheckProblem, CheckResult, SyncClient } from './types.js';

export interface CheckRunOptions {
  config: ResolvedConfig;
  remote?: boolean;
  connect?: () => Promise<SyncClient>;
  /** Type-check the module with the TypeScript compiler (about a second). */
  typecheck?: boolean;
}

const show = (selector: string | null) => (selector === null ? 'no selector' : selector);

/**
 * Where the config and the lockfile disagree, one problem each: requested but not locked,
 * locked at another selector, locked but no longer requested. Empty when they agree.
 */
function configLockMismatches(
  entries: readonly RequestedEntry[],
  lockfile: Lockfile,
  placeholders: ResolvedConfig['placeholders'],
): CheckProblem[] {
  const problems: CheckProblem[] = [];
  const mismatch = (subject: string, message: string) => problems.push({ code: 'config-mismatch', subject, message });
  const lockedNames = Object.keys(lockfile.prompts);
  for (const entry of entries) {
    if (entry.kind === 'exact') {
      const locked = lockfile.prompts[entry.name];
      if (!locked) mismatch(entry.raw, `${entry.raw} is in the config but not in the lockfile`);
      else if (locked.selector !== entry.selector) {
        mismatch(entry.raw, `${entry.raw} asks for ${show(entry.selector)}, the lockfile has ${entry.name} at ${show(locked.selector)}`);
      }
    } else if (!lockedNames.some((name) => parsePackageName(name)?.workspace === entry.workspace)) {
      mismatch(entry.raw, `${entry.raw} is in the config but the lockfile has no prompt of workspace "${entry.workspace}"`);
    }
  }
  for (const name of lockedNames) {
    const wanted = selectorFor(entries, name);
    const locked = lockfile.prompts[name]!;
    if (wanted === undefined) mismatch(name, `${name} is in the lockfile but no longer requested by the config`);
    else if (wanted !== locked.selector && !entries.some((e) => e.kind === 'exact' && e.name === name)) {
      mismatch(name, `${name} is locked at ${show(locked.selector)}, the config asks for ${show(wanted)}`);
    }
    const reading = readingFor(placeholders, name);
    if (wanted !== undefined && JSON.stringify(reading ?? null) !== JSON.stringify(locked.placeholders ?? null)) {
      mismatch(
        name,
        `${name} is read ${showReading(reading)} by the config's "placeholders", the lockfile read it ${showReading(locked.placeholders)}`,
      );
    }
  }
  return problems;
}

/** `by the grammar`, `as the SDK reads it`, `by the grammar with "end", "item" kept as text`. */
function showReading(reading: LockEntry['placeholders']): string {
  if (reading === undefined) return 'by the grammar';
  if (reading === 'sdk') return 'as the SDK reads it';
  return `by the grammar with ${reading.text.map((name) => JSON.stringify(name)).join(', ')} kept as text`;
}

/** The same, as readable lines (for the error of `sync --frozen`). */
export function compareConfigWithLock(
  entries: readonly RequestedEntry[],
  lockfile: Lockfile,
  placeholders: ResolvedConfig['placeholders'],
): string[] {
  return configLockMismatches(entries, lockfile, placeholders).map(describeProblem);
}

/** A problem as one line: its message, then its fix. */
export function describeProblem(problem: CheckProblem): string {
  return problem.fix ? `${problem.message}: ${problem.fix}` : problem.message;
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
function lockedFieldProblems(name: string, entry: LockEntry, expected: LockEntry, prompt: Prompt, contextFiles: boolean): CheckProblem[] {
  const problems: CheckProblem[] = [];
  const problem = (code: CheckProblem['code'], message: string, fix?: string) =>
    problems.push({ code, subject: name, message: `${name}: ${message}`, ...(fix ? { fix } : {}) });
  const differs = (field: string, locked: unknown, actual: unknown) =>
    problem(
      'lock-mismatch',
      `the lockfile's ${field} ${JSON.stringify(locked)} does not match its snapshot (${JSON.stringify(actual)})`,
      'run `promptlock sync`',
    );
  if (entry.version !== expected.version) differs('version', entry.version, expected.version);
  if (entry.id !== expected.id) differs('id', entry.id, expected.id);
  if (!sameVariables(expected.variables, entry.variables))
    problem('lock-mismatch', `the lockfile's variables do not match its snapshot`, 'run `promptlock sync`');
  const pinned = entry.selector === 'draft' ? 'v0' : entry.selector && /^v\d+$/.test(entry.selector) ? entry.selector : undefined;
  if (pinned !== undefined && entry.version !== pinned) {
    problem('lock-mismatch', `locked for selector ${entry.selector}, but its version is ${entry.version}`, 'run `promptlock sync`');
  }
  const fileItems = new Set(prompt.context.filter((item) => item.type === 'file').map((item) => item.id));
  for (const id of Object.keys(entry.files ?? {})) {
    if (!fileItems.has(id))
      problem(
        'context-file',
        `the lockfile locks context file ${JSON.stringify(id)}, which its snapshot does not have`,
        'run `promptlock sync`',
      );
  }
  if (contextFiles) {
    for (const id of fileItems) {
      if (!entry.files?.[id])
        problem('context-file', `context file ${JSON.stringify(id)} of its snapshot is not locked`, 'run `promptlock sync`');
    }
  }
  return problems;
}

/** The lockfile, or the problem that there is none or that it is damaged. */
async function lockfileOrProblem(view: StoreView, lockfilePath: string): Promise<Lockfile | CheckProblem> {
  try {
    return (
      (await readLockfile(view, lockfilePath)) ?? {
        code: 'no-lockfile',
        subject: lockfilePath,
        message: `no lockfile at ${lockfilePath}`,
        fix: 'run `promptlock sync` and commit it',
      }
    );
  } catch (error) {
    // A damaged lockfile is a problem like the others, its path shown relative as theirs are.
    if (!(error instanceof LockfileError)) throw error;
    return {
      code: 'lockfile-invalid',
      subject: lockfilePath,
      message: error.message.replace(/\.$/, ''),
      ...(error.hint ? { fix: error.hint } : {}),
    };
  }
}

export async function check(options: CheckRunOptions): Promise<CheckResult> {
  const { config } = options;
  // Paths as the user sees them: relative to the project.
  const shown = (text: string) => text.split(`${config.rootDir}${path.sep}`).join('');
  const relative = (problem: CheckProblem): CheckProblem => ({
    ...problem,
    subject: shown(problem.subject),
    message: shown(problem.message),
    ...(problem.fix ? { fix: shown(problem.fix) } : {}),
  });
  // Never through a journal: a committed one still pending is a problem, and the files on disk are checked.
  const view = await openStoreView(storeFilesOf(config), { readThrough: false });
  const lockfile = await lockfileOrProblem(view, config.lockfilePath);
  if ('code' in lockfile) return { problems: [relative(lockfile)], checked: 0, placeholders: [] };
  const entries = requestedEntries(config.prompts);
  // Each problem names the command that fixes it (test/sync/check-fixes.e2e.test.ts runs each).
  const problems = configLockMismatches(entries, lockfile, config.placeholders).map(
    (problem): CheckProblem => ({ ...problem, fix: 'run `promptlock sync`' }),
  );
  // A run that failed after its commit point (a read-only or full disk, say) said so when it
  // failed; until a sync completes it, the files on disk are what is checked.
  for (const journal of view.pendingCommits) {
    problems.push({
      code: 'pending-commit',
      subject: journal,
      message: `an interrupted sync left committed writes in ${journal}, not applied yet`,
      fix: 'run `promptlock sync` to complete them',
    });
  }
  for (const journal of view.foreignCommits) {
    problems.push({
      code: 'foreign-commit',
      subject: journal,
      message: `${journal} is a journal no promptlock run wrote here (committed or copied): it is never applied`,
      fix: `remove ${journal}`,
    });
  }
  for (const failed of view.failedCommits) {
    problems.push({
      code: 'failed-commit',
      subject: config.lockfilePath,
      message: `an earlier sync failed while writing its changes (${failed})`,
      fix: 'run `promptlock sync` to complete them',
    });
  }
  const names = Object.keys(lockfile.prompts).sort();
  const prompts = new Map<string, Prompt>();
  const placeholders: PlaceholderNote[] = [];
  /** The lock entries as the snapshots say they must be: what the module must have been built from. */
  const derived = new Map<string, LockEntry>();
  for (const name of names) {
    const entry = lockfile.prompts[name]!;
    const state = await readLockedSnapshot(view, config.snapshotsDir, name, entry, true, config.limits);
    if (!state.ok) {
      problems.push({
        code: 'snapshot',
        subject: name,
        message: `${name}: ${state.problem}`,
        fix: DAMAGED_SNAPSHOT_FIX,
      });
      continue;
    }
    prompts.set(name, state.prompt);
    const note = placeholderNote(name, state.prompt, entry);
    if (note) placeholders.push(note);
    try {
      // Read as the lockfile says it was read: the module was generated that way.
      const expected = lockPrompt(name, entry.selector as Selector | null, state.prompt, entry.placeholders).entry;
      derived.set(name, {
        ...expected,
        ...(entry.exportName === undefined ? {} : { exportName: entry.exportName }),
        ...(entry.files ? { files: entry.files } : {}),
      });
      problems.push(...lockedFieldProblems(name, entry, expected, state.prompt, config.contextFiles));
    } catch (error) {
      problems.push({ code: 'snapshot', subject: name, message: `${name}: ${(error as Error).message}` });
    }
  }
  const module = (code: CheckProblem['code'], message: string, fix?: string) =>
    problems.push({ code, subject: config.outputPath, message, ...(fix ? { fix } : {}) });
  if (prompts.size === names.length && derived.size === names.length) {
    // Built from the entries the snapshots imply, not from the lockfile's word: a lockfile edited
    // to another version or id makes the module differ too.
    const files = generateModuleFiles(
      names.map((name) => ({ name, entry: derived.get(name)!, prompt: prompts.get(name)! })),
      { outputPath: config.outputPath, omit: config.omit },
    );
    // Every file of the module: a `.js` output and the `.d.ts` beside it must both match.
    let matching = true;
    for (const file of files) {
      const actual = (await view.readFile(file.path))?.toString('utf8');
      if (actual === undefined) module('module-missing', `the module ${file.path} is missing`, 'run `promptlock generate`');
      else if (actual !== file.content)
        module('module-stale', `the module ${file.path} does not match the snapshots`, 'run `promptlock generate`');
      matching &&= actual === file.content;
    }
    if (matching && options.typecheck !== false) {
      const [code, declarations] = files;
      // A `.d.ts` is what a JavaScript project's compiler reads; its code is plain JavaScript.
      const checked = declarations ?? code!;
      for (const diagnostic of await typecheckModule(checked.content, checked.path))
        module('module-type-error', `the module does not type-check: ${diagnostic}`);
    }
  } else {
    module('module-unchecked', `the module ${config.outputPath} cannot be checked until the snapshots are fixed`);
  }
  problems.push(...(await snapshotsFolderProblems(view, config.snapshotsDir, lockfile)));
  if (options.remote) problems.push(...(await checkRemote(options, lockfile, entries)));
  return { problems: problems.map(relative), checked: names.length, placeholders };
}

/**
 * Every file of the snapshots folder the lockfile does not account for: a snapshot of a prompt it
 * no longer has (sync removes it), and anything else (a file in a `<package>.files/` folder no
 * locked context file names, for a package that does not exist too, a link): nothing reads these,
 * so a reviewer must see them named (docs/security.md, "A committed file in .promptlock/").
 */
async function snapshotsFolderProblems(view: StoreView, snapshotsDir: string, lockfile: Lockfile): Promise<CheckProblem[]> {
  const problems: CheckProblem[] = [];
  const orphans = new Set<string>();
  for (const name of await orphanSnapshots(view, snapshotsDir, lockfile)) {
    const file = snapshotPath(snapshotsDir, name);
    orphans.add(file);
    problems.push({
      code: 'orphan-snapshot',
      subject: file,
      message: `${file} is a snapshot of ${name}, which the lockfile does not have`,
      fix: '`promptlock sync` removes it',
    });
  }
  for (const file of await unaccountedFiles(snapshotsDir, lockfile)) {
    if (orphans.has(file)) continue;
    problems.push({
      code: 'unlocked-file',
      subject: file,
      message: `${file} is in the snapshots folder, but the lockfile names no such snapshot or context file`,
      fix: `remove ${file} (nothing promptlock builds reads it)`,
    });
  }
  return problems;
}

/**
 * The lockfile against the service, prompt by prompt; a prompt-level failure (a 404) is one
 * problem of that prompt. A failure that ends the run (a rejected key, an address that cannot be
 * reached, a service failing after its retries) starts nothing more and is one problem, not one
 * per prompt (src/sync/for-each-prompt.ts, `haltsRun`).
 */
async function checkRemote(options: CheckRunOptions, lockfile: Lockfile, entries: readonly RequestedEntry[]): Promise<CheckProblem[]> {
  if (!options.connect) throw new PromptlockError('check --remote needs a service connection.');
  const { config } = options;
  const opened = await options.connect();
  // The run's bounds (its time with the service) hold for `check --remote` as for sync.
  const client = new RunTotals(config.limits).watch(opened);
  const problems: CheckProblem[] = [];
  try {
    // Sized by the client's own concurrency (src/sync/for-each-prompt.ts).
    const pool = clientPool<CheckProblem | undefined>(async () => client, false);
    // Gathered per prompt, reported in name order: the same drift gives the same report.
    for (const name of Object.keys(lockfile.prompts).sort()) pool.add(() => remoteProblem(client, config, name, lockfile.prompts[name]!));
    try {
      problems.push(...(await pool.finish()).filter((p): p is CheckProblem => p !== undefined));
    } catch (error) {
      if (!(error instanceof PromptlockError)) throw error;
      problems.push({
        code: 'remote-error',
        subject: config.baseUrl,
        message: `the service could not be checked: ${error.message.replace(/\.$/, '')}`,
        ...(error.hint ? { fix: error.hint } : {}),
      });
      return problems;
    }
    if (entries.length === 0 || entries.some((e) => e.kind === 'glob')) {
      for (const name of listedNames(await client.listAll(), config.workspace)) {
        if (!lockfile.prompts[name] && selectorFor(entries, name) !== undefined) {
          problems.push({
            code: 'remote-not-locked',
            subject: name,
            message: `${name} is listed by the service but not locked`,
            fix: 'run `promptlock sync`',
          });
        }
      }
    }
  } finally {
    await client.close();
  }
  return problems;
}

/** One locked prompt against what the service answers for its selector; a run-ending failure is thrown. */
async function remoteProblem(
  client: SyncClient,
  config: ResolvedConfig,
  name: string,
  entry: LockEntry,
): Promise<CheckProblem | undefined> {
  try {
    const remote = await fetchPrompt(client, name, entry.selector as Selector | null, {
      withFiles: false,
      limits: config.limits,
      apiKey: config.apiKey,
      placeholders: entry.placeholders,
    });
    if (remote.entry.integrity === entry.integrity) return undefined;
    // A new version is the everyday upgrade: a sync of the prompt locks it.
    if (remote.entry.version !== entry.version) {
      const message = `${name}: the service now answers ${remote.entry.version} for ${entry.selector ?? 'no selector'} (locked ${entry.version})`;
      return { code: 'remote-changed', subject: name, message, fix: `run \`promptlock sync ${name}\` to lock ${remote.entry.version}` };
    }
    // The same version with other bytes: `--refetch` gets the prompt even when the list names it at
    // its locked version, or its selector pins it (a snapshot forged together with its lock entry is
    // never fetched again otherwise).
    const message = `${name}: the service's ${entry.version} differs from the locked one (changed on the service, or snapshot and lockfile edited together)`;
    return {
      code: 'remote-changed',
      subject: name,
      message,
      fix: `run \`promptlock sync --refetch ${name}\` to lock what the service has`,
    };
  } catch (error) {
    if (haltsRun(error)) throw error;
    return { code: 'remote-error', subject: name, message: `${name}: ${(error as Error).message}` };
  }
}
