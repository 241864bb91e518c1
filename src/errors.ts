import { TemplateError } from './template/index.js';
import { displayPath } from './util/display-path.js';

/**
 * The few named errors the library throws. The library never prints or exits: the CLI formats
 * these and picks the exit code from `exitCode` (README.md, "Commands": 1 operation failed, 2 usage/config).
 */
export class PromptlockError extends Error {
  override name = 'PromptlockError';
  /** Exit code the CLI uses for this error. */
  readonly exitCode: 1 | 2;
  /** What the user can do about it, printed under the message. */
  readonly hint: string | undefined;

  constructor(message: string, options: { hint?: string; cause?: unknown; exitCode?: 1 | 2 } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 1;
  }
}

/**
 * The exit code of a sync that landed with a prompt refused and skipped (docs/cli.md): not
 * 0, so CI notices; not 1, which says nothing was written.
 */
export const SKIPPED_EXIT_CODE = 3;

/** A bad config file or option value, or a bad command line. Exit code 2. */
export class ConfigError extends PromptlockError {
  override name = 'ConfigError';
  constructor(message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, { ...options, exitCode: 2 });
  }
}

/** The service answered with an error, an invalid body, or could not be reached. */
export class ServiceError extends PromptlockError {
  override name = 'ServiceError';
  /** HTTP status, when the service answered. */
  readonly status: number | undefined;
  /** Machine-readable error code from the body (`unauthorized`, `rate_limit_exceeded`…) or a client code (`network`, `timeout`, `invalid_response`). */
  readonly code: string | undefined;
  /** For a rate limit a client was told not to wait for: how long the service asks to wait, in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: { hint?: string; cause?: unknown; status?: number; code?: string; retryAfterMs?: number } = {}) {
    super(message, options);
    this.status = options.status;
    this.code = options.code;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * A prompt the service answered that promptlock refuses to lock: a field breaks its grammar or the
 * prompt passes a limit. Names the field, so a sync of a glob can skip the prompt and say where
 * (README, "Placeholders"); the code stays `invalid_response`.
 */
export class RefusedPromptError extends ServiceError {
  override name = 'RefusedPromptError';
  /** The field refused (`version`, `content`, `(whole prompt)`…). */
  readonly field: string;
  /** Why, without the prompt's name: `field "content" is 2000001 bytes, over the limit of …`. */
  readonly reason: string;
  /** What to do about it, said of the prompt alone (the hint adds that nothing was written). */
  readonly fix: string;
  constructor(message: string, options: { hint: string; field: string; reason: string; fix: string }) {
    super(message, { hint: options.hint, code: 'invalid_response' });
    this.field = options.field;
    this.reason = options.reason;
    this.fix = options.fix;
  }
}

/** The lockfile or snapshots are missing, corrupt, or disagree with the config. */
export class LockfileError extends PromptlockError {
  override name = 'LockfileError';
}

/**
 * A prompt text cannot be turned into a typed function (e.g. conflicting type hints). Thrown by
 * src/template/, which imports nothing of ours (docs/architecture.md), so the class is defined there
 * and joined to `PromptlockError` here: `instanceof PromptlockError` holds, as for the others.
 */
Object.setPrototypeOf(TemplateError.prototype, PromptlockError.prototype);

export { TemplateError };

/** Several independent failures gathered so one bad item does not hide the others. */
export class AggregatePromptlockError extends PromptlockError {
  override name = 'AggregatePromptlockError';
  readonly errors: readonly PromptlockError[];
  constructor(message: string, errors: readonly PromptlockError[]) {
    super(message, { exitCode: errors.some((e) => e.exitCode === 1) ? 1 : 2 });
    this.errors = errors;
  }
}

/** What an operating-system error code means, in words (the code itself is printed too). */
const FS_CAUSES: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted by permissions or an immutable flag',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'it is a folder, not a file',
  ENOTEMPTY: 'the folder is not empty',
  EEXIST: 'something else is already there',
  ENOENT: 'no such file or folder',
  EIO: 'an input/output error of the disk',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  EBUSY: 'the file is busy',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
  EFBIG: 'the file is too large',
  EXDEV: 'it is on another file system',
};

/**
 * A file or folder could not be read, written, renamed or removed (no space, read-only disk, no
 * permission…): an operation failure of the machine, not a bug. Names the path and the cause.
 */
export class FileSystemError extends PromptlockError {
  override name = 'FileSystemError';
  /** The operating-system code (`ENOSPC`, `EROFS`, …). */
  readonly code: string | undefined;
  readonly path: string;

  constructor(action: string, file: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    const words = code ? (FS_CAUSES[code] ?? (cause as Error).message) : String((cause as Error)?.message ?? cause);
    // Relative to this process's folder; the CLI shows it relative to the folder the command runs in.
    super(`Cannot ${action} ${displayPath(file, process.cwd())}: ${words}${code ? ` (${code})` : ''}.`, {
      cause,
      hint:
        code === 'ENOSPC' || code === 'EDQUOT'
          ? 'Free some space and run the command again; nothing was half written.'
          : 'Fix the file or folder (permissions, read-only mount, a file where a folder belongs) and run the command again.',
    });
    this.code = code;
    this.path = file;
  }
}

/** True for an error thrown by a Node file-system call (it carries `code`, `syscall` and `path`). */
function isFileSystemFailure(error: unknown): error is NodeJS.ErrnoException & { path: string } {
  const e = error as NodeJS.ErrnoException | undefined;
  return !!e && typeof e.code === 'string' && typeof e.syscall === 'string' && typeof e.path === 'string';
}

/**
 * Wraps a Node file-system error, or with `file` given any error carrying a string `code`, as a
 * FileSystemError; other errors pass through unchanged.
 */
export function asFileSystemError(error: unknown, action?: string, file?: string): unknown {
  if (error instanceof PromptlockError) return error;
  if (!isFileSystemFailure(error) && file === undefined) return error;
  if (typeof (error as NodeJS.ErrnoException)?.code !== 'string') return error;
  const e = error as NodeJS.ErrnoException;
  return new FileSystemError(action ?? SYSCALL_ACTIONS[e.syscall ?? ''] ?? `${e.syscall ?? 'use'}`, file ?? e.path!, error);
}

const SYSCALL_ACTIONS: Record<string, string> = {
  open: 'open',
  read: 'read',
  write: 'write',
  rename: 'rename',
  unlink: 'remove',
  rmdir: 'remove the folder',
  rm: 'remove',
  mkdir: 'create the folder',
  scandir: 'list the folder',
  copyfile: 'copy',
  link: 'link',
  fsync: 'flush',
  lstat: 'inspect',
  stat: 'inspect',
};
