import type { PlaceholderNote } from '../sync/placeholder-notes.js';
import { describeKept, describeUnknownHint } from '../sync/placeholder-notes.js';
import type { CommandContext } from './context.js';

/**
 * Once per prompt (README, "Placeholders"): what its function reads as text, and each hint that is
 * no type, as a warning naming the placeholder and the types there are.
 */
export function printPlaceholderNotes(ctx: CommandContext, notes: readonly PlaceholderNote[]): void {
  for (const note of notes) {
    if (note.keptAsText > 0) ctx.logger.info(`  ${note.name}: ${describeKept(note)}`);
    for (const hint of note.unknownHints) ctx.logger.warn(`${note.name}: ${describeUnknownHint(hint)}`);
  }
}
