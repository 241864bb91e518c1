import type { LockChanges } from './types.js';

type ChangeKind = 'added' | 'changed' | 'removed';

/**
 * The `+ ~ -` list of what a sync changed, as `sync` prints it line by line and watch on one line:
 * added, then changed, then removed prompts. `sign` colours the sign; `gap` goes between name and
 * version.
 */
export function changeList(
  changes: Pick<LockChanges, ChangeKind>,
  { sign = (_kind: ChangeKind, text: string) => text, gap = ' ' } = {},
): Array<{ name: string; text: string }> {
  return [
    ...changes.added.map((c) => ({ name: c.name, text: `${sign('added', '+')} ${c.name}${gap}${c.to}` })),
    ...changes.changed.map((c) => ({
      name: c.name,
      text: `${sign('changed', '~')} ${c.name}${gap}${c.reread ? `${c.to} (placeholders read otherwise)` : c.from === c.to ? `${c.to} (edited)` : `${c.from} → ${c.to}`}`,
    })),
    ...changes.removed.map((c) => ({ name: c.name, text: `${sign('removed', '-')} ${c.name}` })),
  ];
}
