/**
 * Which prompt changes break callers of the generated code: a function whose parameter changes
 * (variables added, removed or retyped), or a function that leaves the module. One rule for `diff`
 * (variables read from the prompts) and `sync` (variables read from the lockfiles), without the
 * line-diff library.
 */
import type { Variable } from '../template/index.js';
import { oneLine } from '../terminal-text.js';

/** How the generated function's parameter changes: any of these breaks callers at compile time. */
interface SignatureChange {
  added: string[];
  removed: string[];
  /** `name: string → number`. */
  retyped: string[];
}

/** A breaking change to one prompt's generated function. */
export type BreakingChange = SignatureChange | { removed: 'function' };

/**
 * How callers of a prompt's generated function break, from its variables before and after
 * (`undefined`: no function on that side); undefined when nothing breaks. One rule for `diff`,
 * which reads them from the prompts, and `sync`, which reads them from the lockfiles.
 */
export function breakingChange(
  before: readonly Variable[] | undefined,
  after: readonly Variable[] | undefined,
): BreakingChange | undefined {
  if (before === undefined) return undefined;
  if (after === undefined) return { removed: 'function' };
  const old = new Map(before.map((v) => [v.name, v.type]));
  const next = new Map(after.map((v) => [v.name, v.type]));
  const added = [...next.keys()].filter((v) => !old.has(v)).sort();
  const removed = [...old.keys()].filter((v) => !next.has(v)).sort();
  const retyped = [...next.keys()]
    .filter((v) => old.has(v) && old.get(v) !== next.get(v))
    .sort()
    .map((v) => `${v}: ${old.get(v)} → ${next.get(v)}`);
  return added.length + removed.length + retyped.length > 0 ? { added, removed, retyped } : undefined;
}

/**
 * `variables added: x; removed: y; retyped: z: string → number`, or `its function is removed`.
 * Variable names are the service's text: each is written through `name`, the escaper of where the
 * sentence goes (one line for a log, a code span for markdown: docs/security.md).
 */
export function describeBreaking(breaking: BreakingChange, name: (text: string) => string = oneLine): string {
  if (breaking.removed === 'function') return 'its function leaves the generated module';
  const change = breaking as SignatureChange;
  // `retyped` holds `name: old → new`; a variable name holds no `:` (the template grammar).
  const retyped = (entry: string) => {
    const colon = entry.indexOf(': ');
    return `${name(entry.slice(0, colon))}${entry.slice(colon)}`;
  };
  const parts = [
    change.added.length ? `variables added: ${change.added.map(name).join(', ')}` : '',
    change.removed.length ? `variables removed: ${change.removed.map(name).join(', ')}` : '',
    change.retyped.length ? `variables retyped: ${change.retyped.map(retyped).join(', ')}` : '',
  ];
  return `its function's parameter changes (${parts.filter(Boolean).join('; ')})`;
}
