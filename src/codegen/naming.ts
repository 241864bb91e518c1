/**
 * Names of the generated functions (DESIGN.md, "The generated module"): the package slug in
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
 */
import { parsePackageName } from '../package-name.js';

/** Words that cannot name a function declaration in an ES module (strict mode) or a TS module. */
const RESERVED = new Set([
  // ECMAScript reserved words, including the strict-mode and module-only ones.
  ...'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await'.split(
    ' ',
  ),
  // Not reserved, but not declarable in strict code or clashing with globals TypeScript guards.
  ...'arguments eval undefined globalThis require exports module'.split(' '),
]);

/** Names the generated module declares itself (runtime helpers start with `$`, out of reach). */
export const MODULE_NAMES = new Set(['prompts', 'PromptName', 'RenderedPrompt', 'RenderedPromptContextItem']);

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
 * Picks a unique function name for each base package name (`@ws/pkg`). Deterministic: the same set
 * of names gives the same result in any order.
 */
export function functionNames(packageNames: readonly string[]): Map<string, string> {
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
  const candidates: Candidate[] = base.map(({ packageName, workspace, name }) => {
    const prefixed = workspacesByName.get(name)!.size > 1;
    const wanted = prefixed ? camelCase(`${workspace}-${name}`) : name;
    const fixed = fixIdentifier(wanted);
    return { packageName, name: fixed.name, rank: prefixed || fixed.fixed ? 1 : 0 };
  });
  candidates.sort((a, b) => a.rank - b.rank || (a.packageName < b.packageName ? -1 : a.packageName > b.packageName ? 1 : 0));

  const taken = new Set<string>();
  const out = new Map<string, string>();
  for (const candidate of candidates) {
    let name = candidate.name;
    for (let n = 2; taken.has(name); n++) name = `${candidate.name}${n}`;
    taken.add(name);
    out.set(candidate.packageName, name);
  }
  return out;
}
