/**
 * What `sync`, `add` and `check` say about a prompt's placeholders (README, "Placeholders"): how
 * many render as written and the first few, by field and line, and each hint written as a type
 * that is none of the service's, with the types there are. Once per prompt, as data: the CLI
 * prints it and `--json` carries it.
 */
import type { LockEntry } from '../store/lockfile-format.js';
import { readTexts, TYPE_HINT_NAMES } from '../template/index.js';
import { type Prompt, promptTexts } from '../types.js';
import { editDistance } from '../util/edit-distance.js';

/** How many placeholders kept as text a note shows. */
const FIRST = 3;
/** Longest placeholder a note shows whole (a handlebars comment can run to hundreds of characters). */
const SHOWN_CHARS = 60;

/** One placeholder a note names, as written (shortened), where it is, and why. */
interface NotedPlaceholder {
  field: string;
  line: number;
  text: string;
  why: string;
}

interface UnknownHintNote {
  field: string;
  line: number;
  text: string;
  hint: string;
  /** The closest type name, when one is close. */
  suggestion?: string;
}

/** One prompt's note. */
export interface PlaceholderNote {
  name: string;
  /** How many `{{…}}` render exactly as written. */
  keptAsText: number;
  /** The first of them, in text order. */
  first: NotedPlaceholder[];
  unknownHints: UnknownHintNote[];
}

/** A placeholder on one line, at most SHOWN_CHARS long (a note is one line of the summary). */
function shorten(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > SHOWN_CHARS ? `${line.slice(0, SHOWN_CHARS - 3)}…}}` : line;
}

function suggestionFor(hint: string): string | undefined {
  const lower = hint.toLowerCase();
  const [best] = TYPE_HINT_NAMES.map((type) => ({ type, d: editDistance(lower, type) })).sort((a, b) => a.d - b.d);
  // A third of the hint's length, as option names are suggested: `nubmer` → number, not `date` → dict.
  return best && best.d <= Math.max(1, Math.floor(hint.length / 3)) ? best.type : undefined;
}

/**
 * The note of one locked prompt, read as its lock entry records; undefined when everything is a
 * variable and every hint a type. Texts that cannot be read (conflicting hints) have no note: the
 * sync that locks them refuses them.
 */
export function placeholderNote(name: string, prompt: Prompt, entry: Pick<LockEntry, 'placeholders'>): PlaceholderNote | undefined {
  let reading;
  try {
    reading = readTexts(promptTexts(prompt), name, entry.placeholders);
  } catch {
    return undefined;
  }
  const { kept, unknownHints } = reading;
  if (kept.length === 0 && unknownHints.length === 0) return undefined;
  return {
    name,
    keptAsText: kept.length,
    first: kept.slice(0, FIRST).map((k) => ({ ...k, text: shorten(k.text) })),
    unknownHints: unknownHints.map((u) => {
      const suggestion = suggestionFor(u.hint);
      return { ...u, text: shorten(u.text), ...(suggestion ? { suggestion } : {}) };
    }),
  };
}

/** `3 placeholders kept as text: {{#each items}} (content line 4), {{/each}} (content line 6), … and 1 more`. */
export function describeKept(note: PlaceholderNote): string {
  const shown = note.first.map((k) => `${k.text} (${k.field} line ${k.line})`).join(', ');
  const more = note.keptAsText - note.first.length;
  return `${note.keptAsText} ${note.keptAsText === 1 ? 'placeholder' : 'placeholders'} kept as text: ${shown}${more > 0 ? `, and ${more} more` : ''}`;
}

/** `{{count:nubmer}} (content line 3): "nubmer" is not a type (did you mean "number"?), so it is typed string; …`. */
export function describeUnknownHint(hint: UnknownHintNote): string {
  return `${hint.text} (${hint.field} line ${hint.line}): "${hint.hint}" is not a type${hint.suggestion ? ` (did you mean "${hint.suggestion}"?)` : ''}, so it is typed string; the types are ${TYPE_HINT_NAMES.join(', ')}`;
}
