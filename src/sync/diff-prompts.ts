/**
 * What `sync` would change, as readable line diffs of the prompt texts (for the terminal, or
 * markdown for a pull-request comment).
 */
import { structuredPatch } from 'diff';
import { encodeSnapshot } from '../store/snapshot-format.js';
import type { Prompt } from '../types.js';

export interface FieldDiff {
  field: string;
  /** Unified-diff lines (` `, `-`, `+` prefixed) with `@@` hunk headers. */
  lines: string[];
}

export interface PromptDiff {
  name: string;
  status: 'added' | 'removed' | 'changed';
  from?: string;
  to?: string;
  fields: FieldDiff[];
}

const TEXT_FIELDS = ['title', 'description', 'systemPrompt', 'content', 'critiquePrompt'] as const;

/** A text field, or undefined when the prompt lacks it (absent or null): zero lines, not one empty line. */
function text(prompt: Prompt | undefined, field: string): string | undefined {
  const value = prompt?.[field];
  return typeof value === 'string' ? value : undefined;
}

function lineDiff(field: string, before: string | undefined, after: string | undefined): FieldDiff | undefined {
  if (before === after) return undefined;
  const asLines = (value: string | undefined) => (value === undefined ? '' : `${value}\n`);
  const patch = structuredPatch(field, field, asLines(before), asLines(after), '', '', { context: 3 });
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

/** Everything but the texts (tags, category, context, metadata…), compared as snapshot JSON. */
function otherFields(prompt: Prompt | undefined): string | undefined {
  if (!prompt) return undefined;
  const rest: Record<string, unknown> = { ...prompt };
  for (const field of [...TEXT_FIELDS, 'version', 'packageName']) delete rest[field];
  return encodeSnapshot(rest as Prompt).trimEnd();
}

export function diffPrompts(before: ReadonlyMap<string, Prompt>, after: ReadonlyMap<string, Prompt>, names?: ReadonlySet<string>): PromptDiff[] {
  const all = [...new Set([...before.keys(), ...after.keys()])].filter((n) => !names || names.has(n)).sort();
  const out: PromptDiff[] = [];
  for (const name of all) {
    const old = before.get(name);
    const next = after.get(name);
    const fields: FieldDiff[] = [];
    for (const field of TEXT_FIELDS) {
      const diff = lineDiff(field, text(old, field), text(next, field));
      if (diff) fields.push(diff);
    }
    const other = lineDiff('other fields', otherFields(old), otherFields(next));
    if (other && old && next) fields.push(other);
    const status = !old ? 'added' : !next ? 'removed' : 'changed';
    if (status === 'changed' && fields.length === 0 && old!.version === next!.version) continue;
    out.push({ name, status, ...(old ? { from: old.version } : {}), ...(next ? { to: next.version } : {}), fields });
  }
  return out;
}

type Paint = (kind: 'add' | 'del' | 'hunk' | 'title', text: string) => string;

export function formatDiffText(diffs: readonly PromptDiff[], paint: Paint = (_k, t) => t): string {
  if (diffs.length === 0) return 'No changes: sync would leave every prompt as it is.\n';
  const out: string[] = [];
  for (const d of diffs) {
    const mark = d.status === 'added' ? '+' : d.status === 'removed' ? '-' : '~';
    const versions = d.status === 'changed' ? (d.from === d.to ? d.to : `${d.from} → ${d.to}`) : d.status === 'added' ? `new at ${d.to}` : `removed (was ${d.from})`;
    out.push(paint('title', `${mark} ${d.name}  ${versions}`));
    if (d.status === 'removed') continue;
    for (const field of d.fields) {
      out.push(`  ${field.field}:`);
      for (const line of field.lines) {
        const kind = line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : undefined;
        out.push(kind ? `  ${paint(kind, line)}` : `  ${line}`);
      }
    }
  }
  return `${out.join('\n')}\n`;
}

/** A fence longer than any run of backticks in the body, so prompt texts cannot break out of it. */
function fenceFor(body: string): string {
  const longest = Math.max(2, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

export function formatDiffMarkdown(diffs: readonly PromptDiff[]): string {
  if (diffs.length === 0) return '**promptlock:** no prompt changes.\n';
  const out = [`## Prompt changes (${diffs.length})`, ''];
  for (const d of diffs) {
    const versions = d.status === 'changed' ? (d.from === d.to ? `${d.to}, edited` : `${d.from} → ${d.to}`) : d.status === 'added' ? `added at ${d.to}` : `removed (was ${d.from})`;
    out.push(`### \`${d.name}\` — ${versions}`, '');
    if (d.status === 'removed') continue;
    for (const field of d.fields) {
      const body = field.lines.join('\n');
      const fence = fenceFor(body);
      out.push(`**${field.field}**`, '', `${fence}diff`, body, fence, '');
    }
  }
  return `${out.join('\n')}\n`;
}
