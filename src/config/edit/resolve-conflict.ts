/**
 * `promptlock sync` on a config with git conflict markers (docs/cli.md, "Merging branches"). Two
 * branches that each `add` a prompt conflict in the `prompts` list; when every conflict lies
 * inside that list and each side holds only entries (and comments), the conflict is resolved the
 * way the lockfile's is: both sides kept, an entry on both sides once, an entry one side removed
 * from the common ancestor (diff3) removed. Everything outside the conflicts stays byte for byte;
 * the result is parsed again, and written only when its list is exactly the merged entries.
 * Anything else (code in a conflict, one package at two selectors) is left to the user, with the
 * reason.
 */
import path from 'node:path';
import type { SourceFile, ts } from 'ts-morph';
import { ConfigError } from '../../errors.js';
import { writeFileSafely } from '../../util/write-file.js';
import { ConfigConflictError } from '../config-conflict.js';
import { readConfigText } from '../config-text.js';
import { promptEntryProblems } from '../prompt-entry.js';
import { findConfigObject, findPromptsArray } from './find-config-object.js';

/** What `sync` reports after resolving a conflicted config. */
export interface ConfigConflictResolution {
  configPath: string;
  /** Number of conflicts (hunks). */
  hunks: number;
  /** Entries only the other branch had, now in the list. */
  added: string[];
  /** Entries both branches added: kept once. */
  duplicates: string[];
  /** Entries one branch removed (known from the common ancestor of a diff3 conflict). */
  removed: string[];
}

const START = /^<{7}(?: |$)/;
const BASE = /^\|{7}(?: |$)/;
const SEPARATOR = /^={7}$/;
const END = /^>{7}(?: |$)/;
/** One entry on its line: indentation, quote, name, optional comma, optional comment. */
const ENTRY = /^([ \t]*)(['"`])([^'"`\\$\r\n]*)\2[ \t]*(,?)([ \t]*(?:\/\/[^\r\n]*)?)$/;
const COMMENT_OR_BLANK = /^[ \t]*(?:\/\/[^\r\n]*)?$/;

interface Hunk {
  line: number;
  ours: string[];
  base: string[] | undefined;
  theirs: string[];
}
type Segment = { common: string[] } | Hunk;

type Item =
  | { kind: 'entry'; indent: string; quote: string; value: string; comma: boolean; tail: string; eol: string }
  | { kind: 'other'; text: string };

function split(text: string, unresolved: (line: number, reason: string) => never): Segment[] {
  const segments: Segment[] = [];
  let hunk: Hunk | undefined;
  let side: 'ours' | 'base' | 'theirs' = 'ours';
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  lines.forEach((line, index) => {
    const bare = line.replace(/\r?\n$/, '');
    if (START.test(bare)) {
      if (hunk) unresolved(index + 1, 'a conflict starts inside another one');
      hunk = { line: index + 1, ours: [], base: undefined, theirs: [] };
      side = 'ours';
    } else if (hunk && BASE.test(bare) && side === 'ours') {
      hunk.base = [];
      side = 'base';
    } else if (hunk && SEPARATOR.test(bare) && side !== 'theirs') {
      side = 'theirs';
    } else if (hunk && END.test(bare) && side === 'theirs') {
      segments.push(hunk);
      hunk = undefined;
    } else if (hunk) {
      (side === 'base' ? hunk.base! : hunk[side]).push(line);
    } else {
      const last = segments[segments.length - 1];
      if (last && 'common' in last) last.common.push(line);
      else segments.push({ common: [line] });
    }
  });
  if (hunk) unresolved(hunk.line, 'the conflict that starts there never ends (no ">>>>>>>")');
  return segments;
}

function items(lines: readonly string[], line: number, unresolved: (line: number, reason: string) => never): Item[] {
  return lines.map((text) => {
    const eol = /\r?\n$/.exec(text)?.[0] ?? '';
    const bare = text.slice(0, text.length - eol.length);
    const entry = ENTRY.exec(bare);
    if (entry) {
      const [, indent, quote, value, comma, tail] = entry as unknown as [string, string, string, string, string, string];
      return { kind: 'entry', indent, quote, value, comma: comma === ',', tail, eol };
    }
    if (COMMENT_OR_BLANK.test(bare)) return { kind: 'other', text };
    return unresolved(line, `the conflict holds more than prompt entries (${JSON.stringify(bare.trim().slice(0, 60))})`);
  });
}

const entriesOf = (list: readonly Item[]) => list.flatMap((item) => (item.kind === 'entry' ? [item.value] : []));
const isSorted = (values: readonly string[]) => values.every((value, i) => i === 0 || values[i - 1]! <= value);

/** One hunk merged: ours, then what only theirs has, with commas set for the list's new shape. */
function mergeHunk(hunk: Hunk, resolution: ConfigConflictResolution, unresolved: (line: number, reason: string) => never): string {
  const ours = items(hunk.ours, hunk.line, unresolved);
  const theirs = items(hunk.theirs, hunk.line, unresolved);
  const base = hunk.base ? entriesOf(items(hunk.base, hunk.line, unresolved)) : [];
  const oursEntries = new Set(entriesOf(ours));
  const theirsEntries = new Set(entriesOf(theirs));
  const removed = new Set(base.filter((entry) => !oursEntries.has(entry) || !theirsEntries.has(entry)));
  resolution.removed.push(...removed);
  const oursText = new Set(ours.flatMap((item) => (item.kind === 'other' ? [item.text.trim()] : [])));
  const merged: Item[] = ours.filter((item) => item.kind !== 'entry' || !removed.has(item.value));
  for (const item of theirs) {
    if (item.kind === 'other') {
      if (!oursText.has(item.text.trim())) merged.push(item);
    } else if (oursEntries.has(item.value)) {
      resolution.duplicates.push(item.value);
    } else if (!removed.has(item.value)) {
      merged.push(item);
      resolution.added.push(item.value);
    }
  }
  let entries = merged.filter((item) => item.kind === 'entry');
  // A sorted list stays sorted (`add` keeps it so); comments would lose their place, so not then.
  if (merged.every((item) => item.kind === 'entry') && isSorted(entriesOf(ours)) && isSorted(entriesOf(theirs))) {
    entries = [...entries].sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
    merged.splice(0, merged.length, ...entries);
  }
  // Every entry but the last needs a comma; the last keeps the one its side's last entry had.
  const lastOf = (list: Item[]) => list.filter((item) => item.kind === 'entry').pop();
  const lastComma = (lastOf(ours) ?? lastOf(theirs))?.comma ?? true;
  const last = entries[entries.length - 1];
  return merged
    .map((item) => {
      if (item.kind === 'other') return item.text;
      const comma = item === last ? lastComma : true;
      return `${item.indent}${item.quote}${item.value}${item.quote}${comma ? ',' : ''}${item.tail}${item.eol}`;
    })
    .join('');
}

/** The `prompts` list's brackets and string entries in a parsed config, or undefined. */
async function promptsList(
  text: string,
  configPath: string,
): Promise<{ open: number; close: number; entries: (string | undefined)[] } | undefined> {
  const tm = await import('ts-morph');
  const name = path.basename(configPath);
  if (configPath.endsWith('.json')) {
    const json = tm.ts.parseJsonText(name, text);
    if ((json as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics.length > 0) return undefined;
    const property = (node: ts.Node | undefined, key: string): ts.Node | undefined =>
      node && tm.ts.isObjectLiteralExpression(node)
        ? node.properties.find(
            (p): p is ts.PropertyAssignment => tm.ts.isPropertyAssignment(p) && tm.ts.isStringLiteral(p.name) && p.name.text === key,
          )?.initializer
        : undefined;
    let object: ts.Node | undefined = json.statements[0]?.expression;
    if (name === 'package.json') object = property(object, 'promptlock');
    const list = property(object, 'prompts');
    if (!list || !tm.ts.isArrayLiteralExpression(list)) return undefined;
    const entries = list.elements.map((element) => (tm.ts.isStringLiteral(element) ? element.text : undefined));
    return { open: list.getStart(json), close: list.getEnd() - 1, entries };
  }
  const project = new tm.Project({ useInMemoryFileSystem: true, compilerOptions: { allowJs: true } });
  const sourceFile: SourceFile = project.createSourceFile(name, text);
  const diagnostics = project.getProgram().compilerObject.getSyntacticDiagnostics(sourceFile.compilerNode);
  if (diagnostics.length > 0) return undefined;
  const list = findPromptsArray(tm, findConfigObject(tm, sourceFile, name), name);
  if (!list) return undefined;
  const entries = list
    .getElements()
    .map((element) =>
      tm.Node.isStringLiteral(element) || tm.Node.isNoSubstitutionTemplateLiteral(element) ? element.getLiteralText() : undefined,
    );
  return { open: list.getStart(), close: list.getEnd() - 1, entries };
}

/**
 * Resolves the git conflicts of a config file inside its `prompts` list and writes the result.
 * Throws ConfigConflictError, naming the line and the reason, when it cannot.
 */
export async function resolveConfigConflict(configPath: string): Promise<ConfigConflictResolution> {
  const text = await readConfigText(configPath);
  if (text === undefined) throw new ConfigError(`Config file not found: ${configPath}.`);
  const unresolved = (line: number, reason: string): never => {
    throw new ConfigConflictError(configPath, line, reason);
  };
  const resolution: ConfigConflictResolution = { configPath, hunks: 0, added: [], duplicates: [], removed: [] };
  const regions: { start: number; end: number; line: number }[] = [];
  let out = '';
  for (const segment of split(text, unresolved)) {
    if ('common' in segment) {
      out += segment.common.join('');
      continue;
    }
    resolution.hunks++;
    const start = out.length;
    out += mergeHunk(segment, resolution, unresolved);
    regions.push({ start, end: out.length, line: segment.line });
  }
  const first = regions[0]?.line ?? 1;
  if (regions.length === 0) unresolved(first, 'its conflict markers are damaged');
  const list = await promptsList(out, configPath);
  if (!list) return unresolved(first, 'the file does not parse with both sides kept, or has no prompts list');
  const outside = regions.find((region) => region.start <= list.open || region.end > list.close);
  if (outside) unresolved(outside.line, 'the conflict is not inside the prompts list');
  const problem = promptEntryProblems(list.entries.filter((entry) => entry !== undefined))[0];
  if (problem) unresolved(first, problem.message);
  await writeFileSafely(configPath, out, { refusal: ConfigError });
  return resolution;
}
