/**
 * Snapshot files: the prompt as the service returned it (fetched without variables), minus the
 * volatile `metadata.generatedAt`, keys in a stable order. Texts that span several lines are stored
 * as an array of lines, so a one-line edit of a prompt is a one-line git diff. Characters a
 * reviewer cannot see (bidi controls, zero-width characters: src/util/hidden-characters.ts) are
 * written as JSON escapes (`\u202e`), which read back as the same value: the pull request shows
 * them, and the lockfile's integrity, taken over the value, does not depend on how they are written.
 */
import { createHash } from 'node:crypto';
import { LockfileError } from '../errors.js';
import type { Limits } from '../limits.js';
import { describeProblem, validatePrompt } from '../prompt-grammar.js';
import { type ContextItem, PROMPT_FIELD_ORDER, type Prompt } from '../types.js';
import { showHidden } from '../util/hidden-characters.js';
import { jsonErrorDetail } from '../util/json-location.js';
import { sortKeysDeep } from '../util/sort-keys-deep.js';
import { integrityOf } from './integrity.js';

/** String fields stored as arrays of lines when they hold a newline. */
const MULTILINE_FIELDS = new Set(['content', 'systemPrompt', 'critiquePrompt', 'description']);

function orderPromptKeys(prompt: Record<string, unknown>): string[] {
  const known: string[] = PROMPT_FIELD_ORDER.filter((key) => key in prompt);
  const extra = Object.keys(prompt)
    .filter((key) => !(PROMPT_FIELD_ORDER as readonly string[]).includes(key))
    .sort();
  return [...known, ...extra];
}

/** The snapshot object (before JSON serialisation) for a prompt. */
function toSnapshotObject(prompt: Prompt): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of orderPromptKeys(prompt)) {
    let value = prompt[key];
    if (value === undefined) continue;
    if (key === 'metadata' && value && typeof value === 'object') {
      const { generatedAt: _volatile, ...rest } = value as Record<string, unknown>;
      value = rest;
    }
    if (MULTILINE_FIELDS.has(key) && typeof value === 'string' && value.includes('\n')) {
      out[key] = value.split('\n');
      continue;
    }
    out[key] = sortKeysDeep(value);
  }
  return out;
}

/** The canonical JSON of a snapshot (2-space JSON, trailing newline), every character as it is: what the integrity covers. */
function canonicalSnapshot(prompt: Prompt): string {
  return `${JSON.stringify(toSnapshotObject(prompt), null, 2)}\n`;
}

/** The snapshot file for a prompt: the canonical JSON with hidden characters escaped, and its lockfile integrity. */
export function snapshotFile(prompt: Prompt): { text: string; integrity: string } {
  const canonical = canonicalSnapshot(prompt);
  return { text: showHidden(canonical), integrity: integrityOf(canonical) };
}

/** Serialises a prompt to the snapshot file's text. */
export function encodeSnapshot(prompt: Prompt): string {
  return showHidden(canonicalSnapshot(prompt));
}

/**
 * Parses snapshot text back into the prompt. Throws `LockfileError` naming `where` when the text is
 * not a snapshot, or when a field fails its grammar or a limit (src/prompt-grammar.ts): a snapshot
 * edited in a pull request is as untrusted as the service.
 */
export function decodeSnapshot(text: string, where: string, limits?: Readonly<Limits>): Prompt {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new LockfileError(`Snapshot ${where} is not valid JSON${jsonErrorDetail(text, error)}.`, {
      hint: 'Restore it from git, or run `promptlock sync` to fetch it again.',
    });
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new LockfileError(`Snapshot ${where} is not a JSON object.`, {
      hint: 'Restore it from git, or run `promptlock sync` to fetch it again.',
    });
  }
  const prompt = data as Record<string, unknown>; // freshly parsed: ours to change
  for (const key of MULTILINE_FIELDS) {
    const value = prompt[key];
    if (Array.isArray(value)) {
      if (!value.every((line) => typeof line === 'string')) {
        throw new LockfileError(`Snapshot ${where}: "${key}" must be a string or an array of lines.`);
      }
      prompt[key] = value.join('\n');
    }
  }
  const check = validatePrompt(prompt, { limits });
  if (check.ok) return check.prompt;
  const { problem } = check;
  throw new LockfileError(`Snapshot ${where}: ${describeProblem(problem)}.`, {
    hint: problem.limit
      ? `Raise "limits.${problem.limit}" in the config if this prompt is legitimate, or restore the snapshot from git.`
      : 'Restore it from git, or run `promptlock sync` to fetch it again.',
  });
}

/**
 * Integrity of a snapshot: sha256 over its canonical encoding, so line-ending conversions by git
 * and how hidden characters are written do not matter, but any change of content does.
 */
export function snapshotIntegrity(prompt: Prompt): string {
  return integrityOf(canonicalSnapshot(prompt));
}

/** Longest context file name stored: well below any file system's limit (255 bytes), with room for a temporary suffix. */
const MAX_FILE_NAME = 100;

/**
 * A context file name (already one plain name of `[A-Za-z0-9._-]`) short enough for every file
 * system: a longer one keeps its start and its extension, with a short hash of the whole name
 * between them, so two long names that differ only at their end stay two files. Deterministic:
 * the same name always gives the same file.
 */
export function boundedFileName(name: string): string {
  if (name.length <= MAX_FILE_NAME) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 10);
  return `${name.slice(0, MAX_FILE_NAME - extension.length - hash.length - 1)}-${hash}${extension}`;
}

/** `product FAQ (v2).pdf` → `product-FAQ-v2-.pdf`: safe on every file system, never a path. */
function safeFileName(item: ContextItem): string {
  const base = (item.fileName ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = base.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '');
  return cleaned || item.id.replace(/[^A-Za-z0-9._-]+/g, '-');
}

/**
 * The name each file item of `context` is stored under in its package's `<package>.files/` folder,
 * by item id: its `fileName` made safe (`ü.txt` → `txt`), shortened past 100 characters, and
 * prefixed with its id when an earlier item has that name. Part of the snapshot format: sync
 * writes the files by it and `serve` finds them by it (docs/architecture.md).
 */
export function contextFileNames(context: readonly ContextItem[]): Map<string, string> {
  const names = new Map<string, string>();
  const used = new Set<string>();
  for (const item of context) {
    if (item.type !== 'file') continue;
    let name = boundedFileName(safeFileName(item));
    if (used.has(name)) name = boundedFileName(`${item.id.replace(/[^A-Za-z0-9._-]+/g, '-')}-${safeFileName(item)}`);
    used.add(name);
    names.set(item.id, name);
  }
  return names;
}
