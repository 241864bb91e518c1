/**
 * What a journal may touch: promptlock's own files, and nothing else (docs/security.md, "What
 * `.promptlock/` may hold"). A journal is a file in the project like any other: anyone who can
 * commit to the repository can plant one, and its checksum is no secret. So every path it names is
 * read as a path relative to the project and must be one of these:
 *
 * - a snapshot, `<snapshots>/<workspace>/<package>.json`, or a context file,
 *   `<snapshots>/<workspace>/<package>.files/<name>` (written, moved into place or deleted);
 * - the lockfile, the module and its declaration file (written only).
 *
 * A journal naming anything else is refused whole, before any of it is applied. What it writes to
 * the module is never taken from it when another run replays it (recover-store.ts): a journal
 * changes prompt data, and the module is generated again from that data.
 */
import path from 'node:path';
import { PromptlockError } from '../errors.js';
import type { Limits } from '../limits.js';
import type { JournalOp } from './journal-file.js';
import { isWithin } from './paths.js';

/** promptlock's own files in a project: the only paths a commit may name. */
export interface StoreFiles {
  rootDir: string;
  snapshotsDir: string;
  lockfilePath: string;
  /** The module and, for JavaScript output, its declaration file. */
  moduleFiles: readonly string[];
  /** The config's limits, which bound what is read from the snapshots folder (storeFileBytes); defaults when absent. */
  limits?: Readonly<Limits> | undefined;
}

/** Which of promptlock's files a path is. */
export type StorePart = 'snapshots' | 'lockfile' | 'module';

/** A journal operation whose paths were admitted: absolute, and what each target is. */
export interface StoreOp extends Omit<JournalOp, 'target' | 'source'> {
  target: string;
  /** A move's staged file (in the work folder). */
  source?: string;
  part: StorePart;
}

const SLUG = /^[a-z0-9-]+$/;
const CONTEXT_FILE = /^[A-Za-z0-9._-]+$/;

/** True when `parts` (relative to the snapshots folder) name a snapshot or a context file. */
function isSnapshotFile(parts: readonly string[]): boolean {
  const [workspace, second, third] = parts;
  if (!SLUG.test(workspace ?? '')) return false;
  if (parts.length === 2) return second!.endsWith('.json') && SLUG.test(second!.slice(0, -'.json'.length));
  return (
    parts.length === 3 &&
    second!.endsWith('.files') &&
    SLUG.test(second!.slice(0, -'.files'.length)) &&
    CONTEXT_FILE.test(third!) &&
    third !== '.' &&
    third !== '..'
  );
}

/** What `file` (absolute) is to the store, or undefined when it is none of promptlock's files. */
export function storePartOf(files: StoreFiles, file: string): StorePart | undefined {
  const target = path.resolve(file);
  if (target === path.resolve(files.lockfilePath)) return 'lockfile';
  if (files.moduleFiles.some((module) => path.resolve(module) === target)) return 'module';
  const store = path.resolve(files.snapshotsDir);
  if (!isWithin(store, target)) return undefined;
  return isSnapshotFile(path.relative(store, target).split(path.sep)) ? 'snapshots' : undefined;
}

/** Only the snapshots folder's files are moved into place or deleted; the lockfile and the module are only written. */
export const mayTouch = (kind: JournalOp['kind'], part: StorePart | undefined): part is StorePart =>
  part !== undefined && (kind === 'write' || part === 'snapshots');

/** How a journal names `file` (absolute, inside the project): relative, `/` between its parts. */
export function journalTarget(rootDir: string, file: string): string {
  return path.relative(path.resolve(rootDir), path.resolve(file)).split(path.sep).join('/');
}

/** The absolute path a journal's `target` names, or undefined when it is no plain relative path (absolute, `..`, `.`, empty parts, `\`). */
function resolveTarget(rootDir: string, target: string): string | undefined {
  if (target === '' || target.includes('\\') || target.includes('\0') || path.isAbsolute(target) || /^[A-Za-z]:/.test(target))
    return undefined;
  const parts = target.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..')) return undefined;
  return path.join(path.resolve(rootDir), ...parts);
}

/** A committed journal that names a file promptlock does not own: refused whole, never applied. */
class ForeignJournalError extends PromptlockError {
  constructor(journal: string, refused: readonly string[]) {
    super(
      `Refusing to apply ${journal}: it would touch ${refused.length === 1 ? 'a path' : `${refused.length} paths`} that ${refused.length === 1 ? 'is' : 'are'} not promptlock's own:\n  - ${refused.slice(0, 10).join('\n  - ')}${refused.length > 10 ? `\n  - … and ${refused.length - 10} more` : ''}`,
      {
        hint:
          'A journal may only write snapshots, context files, the lockfile and the module, by paths inside the project; promptlock never wrote this one. ' +
          `Remove ${journal} (and find out how it got there: it may have been committed), then run \`promptlock sync\`.`,
      },
    );
  }
}

/**
 * The ops of a decoded journal with their paths made absolute, each admitted by the rules above;
 * throws ForeignJournalError naming every path that is not (nothing of such a journal is applied).
 * `shownJournal` is how the error names the journal file.
 */
export function admitOps(ops: readonly JournalOp[], files: StoreFiles, workDir: string, shownJournal: string): StoreOp[] {
  const refused: string[] = [];
  const admitted = ops.map((op): StoreOp => {
    const target = resolveTarget(files.rootDir, op.target);
    const part = target === undefined ? undefined : storePartOf(files, target);
    if (!mayTouch(op.kind, part)) {
      refused.push(`${op.kind === 'delete' ? 'delete' : 'write'} ${JSON.stringify(op.target)}`);
      return { ...op, target: op.target, part: 'snapshots' } as StoreOp;
    }
    const { source, ...rest } = op;
    return { ...rest, target: target!, part, ...(source !== undefined ? { source: path.join(workDir, source) } : {}) };
  });
  if (refused.length > 0) throw new ForeignJournalError(shownJournal, refused);
  return admitted;
}
