/**
 * What `sync` would change, as readable line diffs of the prompt texts (for the terminal, or
 * markdown for a pull-request comment).
 */
import { structuredPatch } from 'diff';
import { encodeSnapshot } from '../store/snapshot-format.js';
import { listVariables, type Variable } from '../template/index.js';
import { oneLine, terminalText } from '../terminal-text.js';
import { type Prompt, promptTexts } from '../types.js';
import { codeBlock, codeSpan } from '../util/markdown-text.js';
import { type BreakingChange, breakingChange, describeBreaking } from './breaking-change.js';
import { BREAKING_MARK } from './change-list.js';

export interface FieldDiff {
  field: string;
  /** Unified-diff lines (` `, `-`, `+` prefixed) with `@@` hunk headers; empty when `replaced` is set. */
  lines: string[];
  /**
   * Set instead of line diffs when the texts differ in too many lines to compare in bounded time
   * (`DIFF_BOUNDS`): how many lines each side has.
   */
  replaced?: { before: number; after: number };
}

/**
 * Bounds of the line diff (jsdiff's Myers diff costs lines × changed lines): a field whose texts
 * differ by more than `maxEditLength` lines added plus removed is shown as "text replaced" with its
 * line counts. The run's diffs share `budgetMs`, with no floor per field (issue 30: 100 large
 * prompts cost the budget, not 100 floors): once it is spent, a field of at most `smallLines`
 * lines (both sides together, well under a millisecond) is still diffed, so an ordinary edit is
 * shown whatever came before it, and a larger one is "text replaced".
 */
const DIFF_BOUNDS = { maxEditLength: 1000, budgetMs: 1500, smallLines: 400 };

export interface PromptDiff {
  name: string;
  status: 'added' | 'removed' | 'changed';
  from?: string;
  to?: string;
  /**
   * Set when callers of the generated code break: the function's variables changed, or the
   * function is removed. Breaking prompts are listed first.
   */
  breaking?: BreakingChange;
  /** Timestamp fields (`createdAt`, `urlFetchedAt`…) that changed, shown as one line, not as a diff. */
  timestamps?: string[];
  fields: FieldDiff[];
}

/** The variables of the generated function of a prompt read by the grammar (name → TypeScript type). */
function signatureOf(name: string, prompt: Prompt): Variable[] {
  try {
    return listVariables(promptTexts(prompt), name);
  } catch {
    // Conflicting hints: sync reports it; the diff still shows the texts.
    return [];
  }
}

/** Keys whose values are moments, not content: folded into one line of the diff. */
const TIMESTAMP_KEY = /(?:^|[a-z])At$/;

/** `value` without its timestamp fields, and the paths of those fields with their values. */
function splitTimestamps(value: unknown, at: string, found: Map<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((item, i) => splitTimestamps(item, `${at}[${i}]`, found));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const where = at ? `${at}.${key}` : key;
    // The time of the response: snapshots drop it, so it is never a change.
    if (where === 'metadata.generatedAt') continue;
    if (TIMESTAMP_KEY.test(key) && (typeof inner === 'number' || typeof inner === 'string' || inner === null)) found.set(where, inner);
    else out[key] = splitTimestamps(inner, where, found);
  }
  return out;
}

/** The fields shown as line diffs: the three texts, with title and description first. */
const DIFFED_FIELDS = ['title', 'description', 'systemPrompt', 'content', 'critiquePrompt'] as const;

/** A text field, or undefined when the prompt lacks it (absent or null): zero lines, not one empty line. */
function text(prompt: Prompt | undefined, field: string): string | undefined {
  const value = prompt?.[field];
  return typeof value === 'string' ? value : undefined;
}

function lineDiff(field: string, before: string | undefined, after: string | undefined, deadline: number): FieldDiff | undefined {
  if (before === after) return undefined;
  const asLines = (value: string | undefined) => (value === undefined ? '' : `${value}\n`);
  const count = (value: string | undefined) => (value === undefined ? 0 : value.split('\n').length);
  const replaced = () => ({ field, lines: [], replaced: { before: count(before), after: count(after) } });
  // A side with no text is all additions (or deletions): linear, so not bounded by edit length.
  const oneSided = !before || !after;
  const left = deadline - Date.now();
  const small = count(before) + count(after) <= DIFF_BOUNDS.smallLines;
  if (!oneSided && left <= 0 && !small) return replaced();
  const patch = structuredPatch(field, field, asLines(before), asLines(after), '', '', {
    context: 3,
    ...(oneSided ? {} : { maxEditLength: DIFF_BOUNDS.maxEditLength }),
    // A small field needs no timeout (its cost is bounded by its size); any other gets what is left.
    ...(oneSided || (small && left <= 0) ? {} : { timeout: Math.max(1, left) }),
  });
  if (!patch) return replaced();
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    // An empty side is written `-0,0` as GNU diff does (jsdiff numbers it from 1).
    const at = (start: number, count: number) => `${count === 0 ? Math.max(0, start - 1) : start},${count}`;
    lines.push(`@@ -${at(hunk.oldStart, hunk.oldLines)} +${at(hunk.newStart, hunk.newLines)} @@`);
    // Not push(...lines): a hunk of a prompt of many short lines would overflow the stack.
    for (const line of hunk.lines) if (!line.startsWith('\\')) lines.push(line);
  }
  return { field, lines };
}

/** `text replaced: 60,000 lines → 60,000 lines`: a field too changed to diff line by line. */
function describeReplaced({ before, after }: NonNullable<FieldDiff['replaced']>): string {
  const lines = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'line' : 'lines'}`;
  return `text replaced: ${lines(before)} → ${lines(after)} (too many changed lines to show line by line)`;
}

/** Everything but the texts and timestamps (tags, category, context, metadata…), compared as snapshot JSON. */
function otherFields(prompt: Prompt | undefined, timestamps: Map<string, unknown>): string | undefined {
  if (!prompt) return undefined;
  const rest: Record<string, unknown> = { ...prompt };
  for (const field of [...DIFFED_FIELDS, 'version', 'packageName']) delete rest[field];
  return encodeSnapshot(splitTimestamps(rest, '', timestamps) as Prompt).trimEnd();
}

/**
 * The diffs of the prompts in `before` and `after` (only `names`, when given). `breaking` is what
 * the sync decided from the lock entries (`SyncResult.breaking`), which read each prompt as the
 * config's `placeholders` says; without it, each side's prompt is read by the grammar. A prompt
 * whose function breaks is shown even when its texts did not change (it is read otherwise).
 */
export function diffPrompts(
  before: ReadonlyMap<string, Prompt>,
  after: ReadonlyMap<string, Prompt>,
  names?: ReadonlySet<string>,
  breaking?: ReadonlyArray<{ name: string; change: BreakingChange }>,
): PromptDiff[] {
  const decided = breaking && new Map(breaking.map(({ name, change }) => [name, change]));
  const all = [...new Set([...before.keys(), ...after.keys()])].filter((n) => !names || names.has(n)).sort();
  const out: PromptDiff[] = [];
  const deadline = Date.now() + DIFF_BOUNDS.budgetMs;
  for (const name of all) {
    const old = before.get(name);
    const next = after.get(name);
    const fields: FieldDiff[] = [];
    for (const field of DIFFED_FIELDS) {
      const diff = lineDiff(field, text(old, field), text(next, field), deadline);
      if (diff) fields.push(diff);
    }
    const oldTimes = new Map<string, unknown>();
    const nextTimes = new Map<string, unknown>();
    const other = lineDiff('other fields', otherFields(old, oldTimes), otherFields(next, nextTimes), deadline);
    if (other && old && next) fields.push(other);
    const timestamps =
      old && next ? [...new Set([...oldTimes.keys(), ...nextTimes.keys()])].filter((k) => oldTimes.get(k) !== nextTimes.get(k)).sort() : [];
    const status = !old ? 'added' : !next ? 'removed' : 'changed';
    const breaking = decided
      ? decided.get(name)
      : old
        ? breakingChange(signatureOf(name, old), next ? signatureOf(name, next) : undefined)
        : undefined;
    if (status === 'changed' && !breaking && fields.length === 0 && timestamps.length === 0 && old!.version === next!.version) continue;
    out.push({
      name,
      status,
      ...(old ? { from: old.version } : {}),
      ...(next ? { to: next.version } : {}),
      ...(breaking ? { breaking } : {}),
      ...(timestamps.length > 0 ? { timestamps } : {}),
      fields,
    });
  }
  // Breaking changes first (stable: by name within each group), for the reviewer's eyes.
  return [...out.filter((d) => d.breaking), ...out.filter((d) => !d.breaking)];
}

type Paint = (kind: 'add' | 'del' | 'hunk' | 'title', text: string) => string;

export function formatDiffText(diffs: readonly PromptDiff[], paint: Paint = (_k, t) => t): string {
  if (diffs.length === 0) return 'No changes: sync would leave every prompt as it is.\n';
  const out: string[] = [];
  for (const d of diffs) {
    const mark = d.status === 'added' ? '+' : d.status === 'removed' ? '-' : '~';
    const versions =
      d.status === 'changed'
        ? d.from === d.to
          ? d.to
          : `${d.from} → ${d.to}`
        : d.status === 'added'
          ? `new at ${d.to}`
          : `removed (was ${d.from})`;
    out.push(paint('title', `${mark} ${d.name}  ${versions}${d.breaking ? `  ${BREAKING_MARK}` : ''}`));
    if (d.breaking) out.push(`  breaking: ${describeBreaking(d.breaking)}`);
    if (d.status === 'removed') continue;
    // Keys of extra fields are the service's text: each on one line.
    if (d.timestamps) out.push(`  timestamps changed: ${d.timestamps.map(oneLine).join(', ')}`);
    for (const field of d.fields) {
      out.push(`  ${field.field}:${field.replaced ? ` ${describeReplaced(field.replaced)}` : ''}`);
      for (const line of field.lines) {
        const kind = line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : undefined;
        // Context lines are prompt text printed unpainted: no escape sequence of theirs (a colour
        // that conceals the lines after it, say) may reach a colour terminal.
        out.push(kind ? `  ${paint(kind, line)}` : `  ${terminalText(line)}`);
      }
    }
  }
  return `${out.join('\n')}\n`;
}

export function formatDiffMarkdown(diffs: readonly PromptDiff[]): string {
  if (diffs.length === 0) return '**promptlock:** no prompt changes.\n';
  const breaking = diffs.filter((d) => d.breaking).length;
  const out = [`## Prompt changes (${diffs.length}${breaking ? `, ${breaking} breaking` : ''})`, ''];
  for (const d of diffs) out.push(...markdownSection(d));
  return `${out.join('\n')}\n`;
}

/**
 * One prompt's section of the markdown diff: a `###` heading, the breaking change, each field as a
 * fenced diff. Every text from the service (names, variable names, keys, the texts) is code,
 * through src/util/markdown-text.ts (docs/security.md, "Text a reviewer reads").
 */
export function markdownSection(d: PromptDiff): string[] {
  const versions =
    d.status === 'changed'
      ? d.from === d.to
        ? `${d.to}, edited`
        : `${d.from} → ${d.to}`
      : d.status === 'added'
        ? `added at ${d.to}`
        : `removed (was ${d.from})`;
  const out = [`### ${d.breaking ? '⚠️ **Breaking** ' : ''}${codeSpan(d.name)} — ${versions}`, ''];
  if (d.breaking) out.push(`**Breaking:** ${describeBreaking(d.breaking, codeSpan)}.`, '');
  if (d.status === 'removed') return out;
  if (d.timestamps) out.push(`_Timestamps changed:_ ${d.timestamps.map(codeSpan).join(', ')}`, '');
  for (const field of d.fields) {
    if (field.replaced) {
      out.push(`**${field.field}**: ${describeReplaced(field.replaced)}`, '');
      continue;
    }
    out.push(`**${field.field}**`, '', ...codeBlock(field.lines.join('\n'), 'diff'), '');
  }
  return out;
}
