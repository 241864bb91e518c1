/**
 * The title of a sync's pull request (`sync --report`, README "Prompt updates as pull requests"),
 * apart from the report so that `sync --json` names it without loading the differ.
 */
import { pluralise } from '../util/pluralise.js';

/** What a title is made of: each change's name, kind and version, and whether it breaks callers. */
export interface TitledChange {
  name: string;
  status: 'added' | 'removed' | 'changed';
  to?: string | undefined;
  breaking?: unknown;
}

/**
 * `Update 3 prompts (1 breaking)`, `Add @acme/welcome v1`, `Update @acme/support-reply to v4
 * (breaking)`; empty when nothing changed. From the changes alone, so a sync without `--report`
 * names its pull request without building the diffs.
 */
export function reportTitle(changes: readonly TitledChange[]): string {
  if (changes.length === 0) return '';
  const breaking = changes.filter((d) => d.breaking).length;
  if (changes.length === 1) {
    const [d] = changes as [TitledChange];
    const what =
      d.status === 'added' ? `Add ${d.name} ${d.to}` : d.status === 'removed' ? `Remove ${d.name}` : `Update ${d.name} to ${d.to}`;
    return `${what}${breaking ? ' (breaking)' : ''}`;
  }
  return `Update ${pluralise(changes.length, 'prompt')}${breaking ? ` (${breaking} breaking)` : ''}`;
}
