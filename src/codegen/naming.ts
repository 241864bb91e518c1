/**
 * Names of the generated functions (docs/generated-module.md): the package slug in
 * camelCase, workspace-prefixed when needed to stay unique, and fixed when not a usable name.
 *
 * The rules, applied in order:
 * 1. camelCase of the slug: `support-reply` → `supportReply` (an empty result → `prompt`).
 * 2. When prompts of different workspaces get the same name, each of them is prefixed with its
 *    workspace: `acmeSupportReply`, `globexSupportReply`.
 * 3. A leading digit gets an underscore: `2fa-check` → `_2faCheck`.
 * 4. A reserved word, a name TypeScript reserves at module top level, or a name of the module's
 *    own exports gets the suffix `Prompt`: `delete` → `deletePrompt`, `prompts` → `promptsPrompt`.
 * 5. Any collision left is settled by a number suffix (`2`, `3`…). Names that needed no prefix or
 *    fix are assigned first, then the rest, each group in package-name order, so the result does
 *    not depend on input order.
 *
 * Names are stable (docs/generated-module.md): sync records each prompt's name in the
 * lockfile (`exportName`), and a recorded name is used as it is. The rules above name only the
 * prompts without one (new prompts, or a lockfile written before names were recorded), around the
 * recorded names: a newcomer whose name is taken gets the workspace prefix, so `@acme/welcome`
 * stays `welcome` when `@globex/welcome` arrives as `globexWelcome`.
 */
import { LockfileError } from '../errors.js';
import { parsePackageName } from '../package-name.js';
import { exportNameProblem, MODULE_NAMES, RESERVED } from '../prompt-grammar.js';

export { exportNameProblem };

/** `support-reply` → `supportReply`; empty segments (from `--`) are skipped. */
export function camelCase(slug: string): string {
  const parts = slug.split('-').filter(Boolean);
  return parts.map((part, i) => (i === 0 ? part : part[0]!.toUpperCase() + part.slice(1))).join('');
}

/** Rules 3 and 4: a name that can be declared, and whether it had to change. */
export function fixIdentifier(name: string): { name: string; fixed: boolean } {
  let out = name || 'prompt';
  if (/^[0-9]/.test(out)) out = `_${out}`;
  if (RESERVED.has(out) || MODULE_NAMES.has(out)) out = `${out}Prompt`;
  return { name: out, fixed: out !== name };
}

interface Candidate {
  packageName: string;
  name: string;
  /** 0 for a plain camelCase slug, 1 when a prefix or fix was needed. */
  rank: number;
}

/**
 * Picks a unique function name for each base package name (`@ws/pkg`), keeping the names in
 * `recorded` (by package name) as they are. Deterministic: the same names give the same result in
 * any order. Throws `LockfileError` when recorded names collide or are not identifiers.
 */
export function functionNames(packageNames: readonly string[], recorded: ReadonlyMap<string, string> = new Map()): Map<string, string> {
  const taken = new Set<string>();
  const out = new Map<string, string>();
  for (const packageName of [...packageNames].sort()) {
    const name = recorded.get(packageName);
    if (name === undefined) continue;
    const problem = exportNameProblem(name);
    if (problem)
      throw new LockfileError(`The export name ${JSON.stringify(name)} of ${packageName} ${problem}.`, {
        hint: 'Fix or remove its "exportName" in the lockfile; `promptlock sync` then names it.',
      });
    if (taken.has(name)) {
      const other = [...out].find(([, n]) => n === name)![0];
      throw new LockfileError(`${packageName} and ${other} have the same export name ${JSON.stringify(name)}.`, {
        hint: 'Remove the "exportName" of one of them in the lockfile; `promptlock sync` then names it.',
      });
    }
    taken.add(name);
    out.set(packageName, name);
  }
  // A lockfile written by sync records every name: nothing left to pick.
  if (out.size === packageNames.length) return out;
  const base = packageNames.map((packageName) => {
    const parsed = parsePackageName(packageName);
    if (!parsed) throw new Error(`not a package name: ${packageName}`);
    return { packageName, workspace: parsed.workspace, name: camelCase(parsed.package) };
  });
  const workspacesByName = new Map<string, Set<string>>();
  for (const { name, workspace } of base) {
    const set = workspacesByName.get(name) ?? new Set<string>();
    set.add(workspace);
    workspacesByName.set(name, set);
  }
  const candidates: Candidate[] = base
    .filter(({ packageName }) => !out.has(packageName))
    .map(({ packageName, workspace, name }) => {
      // Shared by another workspace, or taken by a recorded name: the newcomer gets the prefix.
      const prefixed = workspacesByName.get(name)!.size > 1 || taken.has(fixIdentifier(name).name);
      const wanted = prefixed ? camelCase(`${workspace}-${name}`) : name;
      const fixed = fixIdentifier(wanted);
      return { packageName, name: fixed.name, rank: prefixed || fixed.fixed ? 1 : 0 };
    });
  candidates.sort((a, b) => a.rank - b.rank || (a.packageName < b.packageName ? -1 : a.packageName > b.packageName ? 1 : 0));

  for (const candidate of candidates) {
    let name = candidate.name;
    for (let n = 2; taken.has(name); n++) name = `${candidate.name}${n}`;
    taken.add(name);
    out.set(candidate.packageName, name);
  }
  return out;
}

/** The export name of each prompt of a module: the recorded ones, and the rules for the rest. */
export function exportNames(items: readonly { name: string; entry: { exportName?: string | undefined } }[]): Map<string, string> {
  const recorded = new Map<string, string>();
  for (const { name, entry } of items) if (entry.exportName !== undefined) recorded.set(name, entry.exportName);
  return functionNames(
    items.map((item) => item.name),
    recorded,
  );
}

export interface ExportRename {
  name: string;
  from: string;
  to: string;
}

/**
 * The names a sync records in its new lockfile: each prompt that stays keeps the name the module
 * had before (recorded, or computed from the previous lockfile as it was), new prompts are named
 * around them. With `rename`, every name is computed afresh. Returns the entries with their names
 * and the prompts whose name changed, for the summary.
 */
export function recordExportNames<E extends { exportName?: string | undefined }>(
  previous: Readonly<Record<string, E>>,
  next: Readonly<Record<string, E>>,
  rename = false,
): { prompts: Record<string, E>; renamed: ExportRename[] } {
  const before = exportNames(Object.entries(previous).map(([name, entry]) => ({ name, entry })));
  const recorded = new Map<string, string>();
  if (!rename) for (const name of Object.keys(next)) if (before.has(name)) recorded.set(name, before.get(name)!);
  const after = functionNames(Object.keys(next), recorded);
  const prompts: Record<string, E> = {};
  const renamed: ExportRename[] = [];
  for (const [name, entry] of Object.entries(next)) {
    const exportName = after.get(name)!;
    prompts[name] = { ...entry, exportName };
    const was = before.get(name);
    if (was !== undefined && was !== exportName) renamed.push({ name, from: was, to: exportName });
  }
  renamed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { prompts, renamed };
}
