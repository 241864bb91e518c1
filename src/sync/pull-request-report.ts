/**
 * The pull-request body for what one sync changed (`sync --report`, README "Prompt updates as pull
 * requests"): a title line, the breaking changes first with how each function's parameter changes,
 * then every changed prompt as a diff of its texts (timestamps folded to one line), its context
 * files listed. Pure: prompts in, text out; the CLI writes the file.
 */
import type { ContextItem, Prompt } from '../types.js';
import { codeSpan } from '../util/markdown-text.js';
import { pluralise } from '../util/pluralise.js';
import { describeBreaking } from './breaking-change.js';
import { markdownSection, type PromptDiff } from './diff-prompts.js';

export interface PullRequestReport {
  /** `Update 3 prompts (1 breaking)`: the pull request's title and its commit message. */
  title: string;
  /** The markdown body; empty when nothing changed. */
  body: string;
  /** Names of the prompts whose generated function breaks its callers. */
  breaking: string[];
  /** Names of every added, changed or removed prompt. */
  changed: string[];
}

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
