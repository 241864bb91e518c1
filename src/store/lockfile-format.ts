/**
 * The lockfile (`prompts.lock.json`): for each requested package, the selector asked for, the exact
 * version the service answered, the prompt id, the integrity of its snapshot (and of its context
 * files), and its variables. Sorted, no timestamps, never the key.
 */
import { LockfileError } from '../errors.js';
import { isSelector } from '../package-name.js';
import {
  type Check,
  exportNameProblem,
  ID_PATTERN,
  isContextItemId,
  matches,
  object,
  string,
  VERSION_PATTERN,
  variableNameProblem,
} from '../prompt-grammar.js';
import type { PlaceholderReading, Variable } from '../template/index.js';
import { jsonErrorDetail } from '../util/json-location.js';

const LOCKFILE_VERSION = 1;

export interface LockedFile {
  /** Path of the downloaded file, relative to the snapshots folder, with `/` separators. */
  path: string;
  size: number;
  integrity: string;
}

export interface LockEntry {
  /** The selector asked for (`v3`, `latest`, `draft`), or `null` when none was given. */
  selector: string | null;
  /** The version the service answered (`v0` is the draft). */
  version: string;
  id: string;
  /**
   * The name the module exports the prompt as, kept while the prompt stays in the config (README,
   * "The generated module"). Always written by sync; absent in lockfiles written before names were
   * recorded, which get the names computed from the lockfile as it is.
   */
  exportName?: string;
  /** `sha256-…` of the snapshot's canonical encoding. */
  integrity: string;
  /**
   * How its placeholders were read, when not by the grammar alone (the config's `placeholders`,
   * README "Placeholders"): `generate` and `check` read the prompt as the sync that locked it did.
   */
  placeholders?: PlaceholderReading;
  variables: Variable[];
  /** Context files downloaded with `contextFiles: true`, by context item id. */
  files?: Record<string, LockedFile>;
}

export interface Lockfile {
  lockfileVersion: number;
  /** By base package name (`@ws/pkg`), sorted. */
  prompts: Record<string, LockEntry>;
}

// The grammar of src/prompt-grammar.ts: a lockfile edited in a pull request is as untrusted as the
// service. Checked field by field, as `validatePrompt` checks a prompt: a lockfile holds thousands
// of entries and is decoded by every `generate`, where a schema library's per-object cost showed.

const isRecord = (v: unknown): v is Record<string, unknown> => object(v) === undefined;
const optional =
  (check: Check): Check =>
  (v) =>
    v === undefined ? undefined : check(v);
/** A name rule of the grammar as a check. */
const named =
  (problem: (name: string) => string | undefined): Check =>
  (v) =>
    typeof v === 'string' ? problem(v) : 'must be a string';

const VARIABLE_TYPES: ReadonlySet<unknown> = new Set(['string', 'number', 'boolean', 'array', 'object']);

const VARIABLE_FIELDS: ReadonlyArray<[string, Check]> = [
  ['name', named(variableNameProblem)],
  ['type', (v) => (VARIABLE_TYPES.has(v) ? undefined : 'must be one of "string", "number", "boolean", "array", "object"')],
  ['hint', optional(string)],
  ['description', optional(string)],
];

const FILE_FIELDS: ReadonlyArray<[string, Check]> = [
  ['path', (v) => (typeof v === 'string' && v.length > 0 ? undefined : 'must be a non-empty string')],
  ['size', (v) => (Number.isSafeInteger(v) && (v as number) >= 0 ? undefined : 'must be a whole number of bytes')],
  ['integrity', string],
];

/** `"sdk"`, or `{ "text": [names…] }`: the reading of src/template/list-variables.ts, as the config writes it. */
const isReading = (v: unknown): boolean =>
  v === 'sdk' ||
  (isRecord(v) &&
    Object.keys(v).length === 1 &&
    Array.isArray(v.text) &&
    v.text.every((name) => typeof name === 'string' && name.length > 0 && !/[{}]/.test(name)));

const ENTRY_FIELDS: ReadonlyArray<[string, Check]> = [
  [
    'selector',
    (v) => (v === null || (typeof v === 'string' && isSelector(v)) ? undefined : 'must be "latest", "draft" or "v" and digits, or null'),
  ],
  ['version', matches((v) => VERSION_PATTERN.test(v), '"v" and digits ("v0" is the draft)')],
  ['id', matches((v) => ID_PATTERN.test(v), 'an id (1 to 128 of A-Z a-z 0-9 _ -)')],
  ['exportName', optional(named(exportNameProblem))],
  ['integrity', matches((v) => /^sha256-[A-Za-z0-9+/]+=*$/.test(v), '"sha256-" followed by base64')],
  ['placeholders', optional((v) => (isReading(v) ? undefined : 'must be "sdk" or { "text": [placeholder names] }'))],
];

const PACKAGE_KEY = /^@[a-z0-9-]+\/[a-z0-9-]+$/;
const ITEM_ID = matches(isContextItemId, 'a context item id (1 to 128 of A-Z a-z 0-9 _ -, not "__proto__")');

/** Where a decoded value breaks the lockfile's grammar, and how. */
interface LockfileProblem {
  path: string;
  message: string;
}

/** The first problem of `record`'s `fields`, each path under `at`; unknown keys are left out by the decoder. */
function fieldsProblem(record: Record<string, unknown>, fields: ReadonlyArray<[string, Check]>, at: string): LockfileProblem | undefined {
  for (const [field, check] of fields) {
    const value = record[field];
    const message = check(value);
    if (message) return { path: `${at}.${field}`, message: value === undefined ? 'is missing' : message };
  }
  return undefined;
}

function entryProblem(entry: unknown, at: string): LockfileProblem | undefined {
  if (!isRecord(entry)) return { path: at, message: 'must be an object' };
  const problem = fieldsProblem(entry, ENTRY_FIELDS, at);
  if (problem) return problem;
  if (!Array.isArray(entry.variables))
    return { path: `${at}.variables`, message: entry.variables === undefined ? 'is missing' : 'must be an array' };
  for (let i = 0; i < entry.variables.length; i++) {
    const variable: unknown = entry.variables[i];
    const where = `${at}.variables.${i}`;
    const problem = isRecord(variable) ? fieldsProblem(variable, VARIABLE_FIELDS, where) : { path: where, message: 'must be an object' };
    if (problem) return problem;
  }
  if (entry.files === undefined) return undefined;
  if (!isRecord(entry.files)) return { path: `${at}.files`, message: 'must be an object' };
  for (const [id, file] of Object.entries(entry.files)) {
    const where = `${at}.files.${id}`;
    const idProblem = ITEM_ID(id);
    if (idProblem) return { path: where, message: idProblem };
    const problem = isRecord(file) ? fieldsProblem(file, FILE_FIELDS, where) : { path: where, message: 'must be an object' };
    if (problem) return problem;
  }
  return undefined;
}

/** The entry as the types declare it: the known keys, in the canonical order (unknown ones dropped). */
function lockEntry(entry: Record<string, unknown>): LockEntry {
  const out: LockEntry = {
    selector: entry.selector as string | null,
    version: entry.version as string,
    id: entry.id as string,
    integrity: entry.integrity as string,
    variables: (entry.variables as Array<Record<string, unknown>>).map((v) => {
      const variable: Variable = { name: v.name as string, type: v.type as Variable['type'] };
      if (v.hint !== undefined) variable.hint = v.hint as string;
      if (v.description !== undefined) variable.description = v.description as string;
      return variable;
    }),
  };
  if (entry.exportName !== undefined) out.exportName = entry.exportName as string;
  if (entry.placeholders !== undefined) {
    const reading = entry.placeholders as LockEntry['placeholders'];
    out.placeholders = reading === 'sdk' ? 'sdk' : { text: [...reading!.text] };
  }
  if (entry.files !== undefined) {
    const files: Record<string, LockedFile> = {};
    for (const [id, file] of Object.entries(entry.files as Record<string, LockedFile>)) {
      files[id] = { path: file.path, size: file.size, integrity: file.integrity };
    }
    out.files = files;
  }
  return out;
}

export function emptyLockfile(): Lockfile {
  return { lockfileVersion: LOCKFILE_VERSION, prompts: {} };
}

/** Canonical lockfile text: entries sorted by name, keys in a fixed order, trailing newline. */
export function encodeLockfile(lockfile: Lockfile): string {
  const prompts: Record<string, unknown> = {};
  for (const name of Object.keys(lockfile.prompts).sort()) {
    const entry = lockfile.prompts[name]!;
    const out: Record<string, unknown> = {
      selector: entry.selector,
      version: entry.version,
      id: entry.id,
      ...(entry.exportName === undefined ? {} : { exportName: entry.exportName }),
      integrity: entry.integrity,
      ...(entry.placeholders === undefined ? {} : { placeholders: entry.placeholders }),
      variables: entry.variables.map((v) => ({
        name: v.name,
        type: v.type,
        ...(v.hint === undefined ? {} : { hint: v.hint }),
        ...(v.description === undefined ? {} : { description: v.description }),
      })),
    };
    if (entry.files && Object.keys(entry.files).length > 0) {
      const files: Record<string, LockedFile> = {};
      for (const id of Object.keys(entry.files).sort()) {
        const file = entry.files[id]!;
        files[id] = { path: file.path, size: file.size, integrity: file.integrity };
      }
      out.files = files;
    }
    prompts[name] = out;
  }
  return `${JSON.stringify({ lockfileVersion: LOCKFILE_VERSION, prompts }, null, 2)}\n`;
}

/** Parses and validates lockfile text; `where` names the file in errors. */
export function decodeLockfile(text: string, where: string): Lockfile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new LockfileError(`Lockfile ${where} is not valid JSON${jsonErrorDetail(text, error)}.`, {
      hint: 'Restore it from git (after a merge, `git checkout --merge -- <lockfile>`), then run `promptlock sync`: it resolves merge conflicts.',
    });
  }
  const invalid = (problem: LockfileProblem) =>
    new LockfileError(`Lockfile ${where} is invalid at "${problem.path || '(root)'}": ${problem.message}`, {
      hint: 'Restore it from git, or delete it and run `promptlock sync`.',
    });
  if (!isRecord(data)) throw invalid({ path: '', message: 'must be an object' });
  if (data.lockfileVersion !== LOCKFILE_VERSION) {
    throw invalid({
      path: 'lockfileVersion',
      message: `must be ${LOCKFILE_VERSION} (this lockfile was written by another version of promptlock)`,
    });
  }
  if (!isRecord(data.prompts)) throw invalid({ path: 'prompts', message: data.prompts === undefined ? 'is missing' : 'must be an object' });
  // One pass over the entries, in the order of the text: each checked, then kept as the types declare it.
  const prompts: Record<string, LockEntry> = {};
  const exported = new Map<string, string>();
  for (const name of Object.keys(data.prompts)) {
    if (!PACKAGE_KEY.test(name)) throw invalid({ path: `prompts.${name}`, message: 'must be a package name like "@ws/pkg"' });
    const raw = data.prompts[name];
    const problem = entryProblem(raw, `prompts.${name}`);
    if (problem) throw invalid(problem);
    const entry = lockEntry(raw as Record<string, unknown>);
    if (entry.exportName !== undefined) {
      const other = exported.get(entry.exportName);
      if (other !== undefined) {
        throw new LockfileError(
          `Lockfile ${where} is invalid at "prompts.${name}.exportName": ${JSON.stringify(entry.exportName)} is already the export name of ${other}.`,
          {
            hint: `Remove the "exportName" of one of them (git conflict resolution may have duplicated it); \`promptlock sync\` then names it.`,
          },
        );
      }
      exported.set(entry.exportName, name);
    }
    // File paths are joined onto the snapshots folder to read and delete: each must stay inside its
    // own package's `.files` folder, whatever a hand-edited (or malicious) lockfile says.
    if (entry.files) {
      const folder = `${name.slice(1)}.files/`;
      for (const [id, file] of Object.entries(entry.files)) {
        const base = file.path.slice(folder.length);
        if (!file.path.startsWith(folder) || !/^[A-Za-z0-9._-]+$/.test(base) || file.path.endsWith('/..') || base.startsWith('.')) {
          throw new LockfileError(
            `Lockfile ${where} is invalid at "prompts.${name}.files.${id}.path": "${file.path}" must be a file name inside "${folder}".`,
            { hint: 'Restore the lockfile from git, or delete it and run `promptlock sync`.' },
          );
        }
      }
    }
    prompts[name] = entry;
  }
  const lockfile: Lockfile = { lockfileVersion: LOCKFILE_VERSION, prompts };
  return lockfile;
}
