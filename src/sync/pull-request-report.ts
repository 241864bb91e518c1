/**
 * The pull-request body for what one sync changed (`sync --report`, README "Prompt updates as pull
 * requests"): a title line, the breaking changes first with how each function's parameter changes,
 * the prompts the sync refused and skipped, the placeholders the changed prompts keep as text, then
 * every changed prompt as a diff of its texts (timestamps folded to one line), its context files
 * listed. Pure: a sync's result in, text out; the library builds it when asked (`report`), the CLI
 * writes the file.
 */
import path from 'node:path';
import type { ResolvedConfig } from '../config/types.js';
import type { ContextItem, Prompt } from '../types.js';
import { codeSpan } from '../util/markdown-text.js';
import { pluralise } from '../util/pluralise.js';
import { describeBreaking } from './breaking-change.js';
import { compileErrorsSection } from './compile-errors.js';
import { diffPrompts, markdownSection, type PromptDiff } from './diff-prompts.js';
import type { PlaceholderNote } from './placeholder-notes.js';
import type { PullRequestReport, SkippedPrompt, SyncResult } from './types.js';

/**
 * How every report's text begins, after its heading. `promptlock which` knows a commit message or a
 * squashed pull request that carries a report by it (src/history/which.ts, docs/traces.md).
 */
export const REPORT_OPENING = 'This pull request was opened by `promptlock sync --report`';

/**
 * GitHub refuses a pull-request body over 65,536 characters; the rest of the room is left for
 * the note that says what was left out.
 */
const REPORT_MAX_CHARS = 60_000;

export interface ReportOptions {
  /** The snapshots folder as the reader sees it (relative to the project), for the left-out note. */
  snapshotsDir: string;
  maxChars?: number;
  /** Markdown lines closing the "Breaking changes" section: the app's compile errors (src/sync/compile-errors.ts). */
  breakingNotes?: readonly string[];
  /** The prompts the sync left out: the refused ones are listed (README, "Placeholders"). */
  skipped?: readonly SkippedPrompt[];
  /** What the added and changed prompts read as text, and hints that are no type. */
  placeholders?: readonly PlaceholderNote[];
}

/** Skipped prompts and placeholder notes listed; the rest are counted. */
const MAX_LISTED = 30;
/** Characters of one reason or fix kept. */
const MAX_TEXT = 300;

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}

/** `- …` for the first MAX_LISTED items, then a count of the rest. */
function bounded<T>(items: readonly T[], line: (item: T) => string, what: string): string[] {
  const lines = items.slice(0, MAX_LISTED).map((item) => `- ${line(item)}`);
  if (items.length > MAX_LISTED)
    lines.push(`- …and ${pluralise(items.length - MAX_LISTED, what)}: run \`promptlock sync\` to see them all.`);
  return lines;
}

/**
 * "Skipped": each prompt the sync refused (grammar, limits), with its reason, field and line and
 * what stays locked; the service's words (a variable name in the reason) only in code spans.
 */
function skippedSection(skipped: readonly SkippedPrompt[]): string[] {
  const refused = skipped.filter((skip) => skip.refused);
  if (refused.length === 0) return [];
  const where = (skip: SkippedPrompt) =>
    skip.field === undefined ? '' : ` (${codeSpan(skip.field)}${skip.line === undefined ? '' : ` line ${skip.line}`})`;
  const line = (skip: SkippedPrompt) =>
    `${codeSpan(skip.name)}${where(skip)}: ${codeSpan(clip(skip.reason))}; ${skip.kept ? `it stays at ${skip.kept}, as locked before` : 'not added'}${skip.fix ? `. To fix: ${codeSpan(clip(skip.fix))}` : ''}`;
  return [
    '### Skipped',
    '',
    'The service has these prompts, but promptlock refused them, so this update leaves them out (`sync` exits 3):',
    '',
    ...bounded(refused, line, 'more prompt'),
    '',
  ];
}

/** "Placeholders kept as text": per added or changed prompt, what its function renders as written and hints that are no type. */
function placeholderSection(notes: readonly PlaceholderNote[]): string[] {
  if (notes.length === 0) return [];
  const line = (note: PlaceholderNote) => {
    const parts: string[] = [];
    if (note.keptAsText > 0) {
      const shown = note.first.map((k) => `${codeSpan(k.text)} (${codeSpan(k.field)} line ${k.line})`).join(', ');
      const more = note.keptAsText - note.first.length;
      parts.push(`${pluralise(note.keptAsText, 'placeholder')} kept as text: ${shown}${more > 0 ? `, and ${more} more` : ''}`);
    }
    for (const hint of note.unknownHints) {
      parts.push(
        `${codeSpan(hint.text)} (${codeSpan(hint.field)} line ${hint.line}): ${codeSpan(hint.hint)} is not a type${hint.suggestion ? ` (did you mean ${codeSpan(hint.suggestion)}?)` : ''}, so it is typed string`,
      );
    }
    return `${codeSpan(note.name)}: ${parts.join('; ')}`;
  };
  return [
    '### Placeholders kept as text',
    '',
    'These `{{…}}` render exactly as written: they are not parameters of the prompt\'s function (README, "Placeholders").',
    '',
    ...bounded(notes, line, 'more prompt'),
    '',
  ];
}

/**
 * `Update 3 prompts (1 breaking)`, `Add @acme/welcome v1`, `Update @acme/support-reply to v4
 * (breaking)`; the body's heading writes the name through `name` (a code span: `@acme/welcome` is
 * a team mention in GitHub's markdown).
 */
function titleOf(diffs: readonly PromptDiff[], name: (text: string) => string = (text) => text): string {
  const breaking = diffs.filter((d) => d.breaking).length;
  if (diffs.length === 1) {
    const [d] = diffs as [PromptDiff];
    const what =
      d.status === 'added'
        ? `Add ${name(d.name)} ${d.to}`
        : d.status === 'removed'
          ? `Remove ${name(d.name)}`
          : `Update ${name(d.name)} to ${d.to}`;
    return `${what}${breaking ? ' (breaking)' : ''}`;
  }
  return `Update ${pluralise(diffs.length, 'prompt')}${breaking ? ` (${breaking} breaking)` : ''}`;
}

/** `guide.pdf` (added) and the like: the context items whose id, name or size differ between two versions. */
function contextChanges(before: Prompt | undefined, after: Prompt | undefined): string[] {
  const key = (item: ContextItem) => JSON.stringify([item.type, item.fileName ?? item.url ?? null, item.fileSize ?? null]);
  const label = (item: ContextItem) => codeSpan(item.type === 'file' ? (item.fileName ?? item.id) : (item.url ?? item.id));
  const old = new Map((before?.context ?? []).map((item) => [item.id, item]));
  const next = new Map((after?.context ?? []).map((item) => [item.id, item]));
  const lines: string[] = [];
  for (const [id, item] of next) {
    const was = old.get(id);
    if (!was) lines.push(`${label(item)} (${item.type}, added)`);
    else if (key(was) !== key(item)) lines.push(`${label(item)} (${item.type}, changed)`);
  }
  for (const [id, item] of old) if (!next.has(id)) lines.push(`${label(item)} (${item.type}, removed)`);
  return lines;
}

/**
 * The report for `diffs` (as `diffPrompts` orders them: breaking first). Sections that would
 * take the body over `maxChars` are left out whole and named, with where to read them.
 */
export function pullRequestReport(
  diffs: readonly PromptDiff[],
  prompts: { before: ReadonlyMap<string, Prompt>; after: ReadonlyMap<string, Prompt> },
  options: ReportOptions,
): PullRequestReport {
  const changed = diffs.map((d) => d.name);
  const breakingDiffs = diffs.filter((d) => d.breaking);
  const breaking = breakingDiffs.map((d) => d.name);
  if (diffs.length === 0) return { title: '', body: '', breaking, changed };
  const title = titleOf(diffs);
  // Every text from the service is code (src/util/markdown-text.ts; docs/security.md).
  const head: string[] = [`## ${titleOf(diffs, codeSpan)}`, ''];
  head.push(`${REPORT_OPENING}: the prompts below were published in the prompt service.`);
  head.push('Review the texts as you would code; merging ships exactly what is shown here.', '');
  if (breakingDiffs.length > 0) {
    head.push('### Breaking changes', '');
    head.push('Callers of these functions stop compiling until they are updated: the compile errors are the to-do list.', '');
    for (const d of breakingDiffs) head.push(`- ${codeSpan(d.name)}: ${describeBreaking(d.breaking!, codeSpan)}`);
    head.push('', ...(options.breakingNotes ?? []));
  }
  head.push(...skippedSection(options.skipped ?? []), ...placeholderSection(options.placeholders ?? []));
  const maxChars = options.maxChars ?? REPORT_MAX_CHARS;
  // Room kept for the note naming what was left out.
  const budget = maxChars - 2_000;
  let used = head.join('\n').length;
  const sections: string[] = [];
  const leftOut: string[] = [];
  for (const d of diffs) {
    // One level below "Changes".
    const lines = markdownSection(d).map((line, i) => (i === 0 ? `#${line}` : line));
    const context = contextChanges(prompts.before.get(d.name), prompts.after.get(d.name));
    if (context.length > 0) lines.push('**context**', '', ...context.map((line) => `- ${line}`), '');
    const text = lines.join('\n');
    if (used + text.length + 1 > budget) {
      leftOut.push(d.name);
      continue;
    }
    sections.push(text);
    used += text.length + 1;
  }
  const body = [...head, '### Changes', '', ...sections];
  if (leftOut.length > 0) {
    const shown = leftOut.slice(0, 30).map(codeSpan);
    body.push(
      `_${pluralise(leftOut.length, 'prompt')} left out to keep this description under GitHub's size limit: ${shown.join(', ')}${leftOut.length > shown.length ? ', …' : ''}._`,
      `_Their diffs are in this pull request's Files changed tab, or run ${codeSpan(`git diff HEAD~1 -- ${options.snapshotsDir}`)} on its branch._`,
      '',
    );
  }
  return { title, body: `${body.join('\n').trimEnd()}\n`, breaking, changed };
}

/**
 * The report of one sync's result: its diffs cover only the prompts it added, changed or removed,
 * with its refused prompts, its placeholder notes and the app's compile errors (`typecheck`).
 */
export function syncReport(result: SyncResult, config: Pick<ResolvedConfig, 'rootDir' | 'snapshotsDir'>): PullRequestReport {
  const names = new Set([...result.added, ...result.changed, ...result.removed].map((c) => c.name));
  const diffs = diffPrompts(result.before, result.after, names, result.breaking);
  const snapshotsDir = path.relative(config.rootDir, config.snapshotsDir).split(path.sep).join('/') || '.';
  return pullRequestReport(diffs, result, {
    snapshotsDir,
    skipped: result.skipped,
    placeholders: result.placeholders,
    ...(result.typecheck ? { breakingNotes: compileErrorsSection(result.typecheck) } : {}),
  });
}
