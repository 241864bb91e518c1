/**
 * The lockfile (`prompts.lock.json`): for each requested package, the selector asked for, the exact
 * version the service answered, the prompt id, the integrity of its snapshot (and of its context
 * files), and its variables. Sorted, no timestamps, never the key.
 */
import * as z from 'zod';
import { LockfileError } from '../errors.js';
import { isSelector } from '../package-name.js';
import { exportNameProblem, ID_PATTERN, VERSION_PATTERN, variableNameProblem } from '../prompt-grammar.js';
import type { Variable } from '../template/index.js';

export const LOCKFILE_VERSION = 1;

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
  variables: Variable[];
  /** Context files downloaded with `contextFiles: true`, by context item id. */
  files?: Record<string, LockedFile>;
}

export interface Lockfile {
  lockfileVersion: number;
  /** By base package name (`@ws/pkg`), sorted. */
  prompts: Record<string, LockEntry>;
}

// The grammar of src/prompt-grammar.ts: a lockfile edited in a pull request is as untrusted as the service.
const variableSchema = z.object({
  name: z.string().superRefine((name, ctx) => {
    const problem = variableNameProblem(name);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  type: z.enum(['string', 'number', 'boolean', 'array', 'object']),
  hint: z.string().optional(),
  description: z.string().optional(),
});

const lockEntrySchema = z.object({
  selector: z.string().refine(isSelector, 'must be "latest", "draft" or "v" and digits').nullable(),
  version: z.string().regex(VERSION_PATTERN, 'must be "v" and digits ("v0" is the draft)'),
  id: z.string().regex(ID_PATTERN, 'must be an id (1 to 128 of A-Z a-z 0-9 _ -)'),
  exportName: z
    .string()
    .superRefine((name, ctx) => {
      const problem = exportNameProblem(name);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  integrity: z.string().regex(/^sha256-[A-Za-z0-9+/]+=*$/, 'must be "sha256-" followed by base64'),
  variables: z.array(variableSchema),
  files: z
    .record(
      z.string().regex(ID_PATTERN, 'must be a context item id (1 to 128 of A-Z a-z 0-9 _ -)'),
      z.object({ path: z.string().min(1), size: z.number().int().nonnegative(), integrity: z.string() }),
    )
    .optional(),
});

const lockfileSchema = z.object({
  lockfileVersion: z.literal(LOCKFILE_VERSION),
  prompts: z.record(z.string().regex(/^@[a-z0-9-]+\/[a-z0-9-]+$/, 'must be a package name like "@ws/pkg"'), lockEntrySchema),
});

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
    throw new LockfileError(`Lockfile ${where} is not valid JSON: ${(error as Error).message}`, {
      hint: 'Restore it from git (after a merge, `git checkout --merge -- <lockfile>`), then run `promptlock sync`: it resolves merge conflicts.',
    });
  }
  const result = lockfileSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const path = issue.path.map(String).join('.');
    throw new LockfileError(`Lockfile ${where} is invalid at "${path || '(root)'}": ${issue.message}`, {
      hint: 'Restore it from git, or delete it and run `promptlock sync`.',
    });
  }
  const lockfile = result.data as Lockfile;
  const exported = new Map<string, string>();
  for (const [name, entry] of Object.entries(lockfile.prompts)) {
    if (entry.exportName === undefined) continue;
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
  for (const [name, entry] of Object.entries(lockfile.prompts)) {
    const folder = `${name.slice(1)}.files/`;
    for (const [id, file] of Object.entries(entry.files ?? {})) {
      if (
        !file.path.startsWith(folder) ||
        !/^[A-Za-z0-9._-]+$/.test(file.path.slice(folder.length)) ||
        file.path.endsWith('/..') ||
        file.path.slice(folder.length).startsWith('.')
      ) {
        throw new LockfileError(
          `Lockfile ${where} is invalid at "prompts.${name}.files.${id}.path": "${file.path}" must be a file name inside "${folder}".`,
          {
            hint: 'Restore the lockfile from git, or delete it and run `promptlock sync`.',
          },
        );
      }
    }
  }
  return lockfile;
}
