import { type BreakingChange, describeBreaking } from './breaking-change.js';
import type { SyncResult } from './types.js';

type ChangeKind = 'added' | 'changed' | 'removed';

/** The mark after a change that breaks callers of its function: `sync`, `watch` and `diff` print the same word. */
export const BREAKING_MARK = 'BREAKING';

export interface ChangeLine {
  name: string;
  /** `~ @acme/x v1 → v2`, followed by `  BREAKING` when the change breaks callers. */
  text: string;
  /** How it breaks callers (`its function's parameter changes (variables added: tone)`), for the line under it. */
  breaking?: string;
}

/**
 * The `+ ~ -` list of what a sync changed, as `sync` prints it line by line and watch on one line:
 * breaking changes first, marked as `diff` marks them, then added, changed and removed prompts.
 * `sign` colours the sign and `mark` the breaking mark; `gap` goes between name and version.
 */
export function changeList(
  changes: Pick<SyncResult, ChangeKind> & { breaking?: SyncResult['breaking'] },
  {
    sign = (_kind: ChangeKind, text: string) => text,
    mark = (text: string) => text,
    gap = ' ',
  }: { sign?: (kind: ChangeKind, text: string) => string; mark?: (text: string) => string; gap?: string } = {},
): ChangeLine[] {
  const breaking = new Map<string, BreakingChange>((changes.breaking ?? []).map((b) => [b.name, b.change]));
  const lines = [
    ...changes.added.map((c) => ({ name: c.name, text: `${sign('added', '+')} ${c.name}${gap}${c.to}` })),
    ...changes.changed.map((c) => ({
      name: c.name,
      text: `${sign('changed', '~')} ${c.name}${gap}${c.reread ? `${c.to} (placeholders read otherwise)` : c.from === c.to ? `${c.to} (edited)` : `${c.from} → ${c.to}`}`,
    })),
    ...changes.removed.map((c) => ({ name: c.name, text: `${sign('removed', '-')} ${c.name}` })),
  ].map((line): ChangeLine => {
    const change = breaking.get(line.name);
    return change ? { name: line.name, text: `${line.text}  ${mark(BREAKING_MARK)}`, breaking: describeBreaking(change) } : line;
  });
  return [...lines.filter((l) => l.breaking), ...lines.filter((l) => !l.breaking)];
}
