/**
 * The few named errors the library throws. The library never prints or exits: the CLI formats
 * these and picks the exit code from `exitCode` (DESIGN.md: 1 operation failed, 2 usage/config).
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

  constructor(
    message: string,
    options: { hint?: string; cause?: unknown; status?: number; code?: string } = {},
  ) {
    super(message, options);
    this.status = options.status;
    this.code = options.code;
  }
}

/** The lockfile or snapshots are missing, corrupt, or disagree with the config. */
export class LockfileError extends PromptlockError {
  override name = 'LockfileError';
}

/** A prompt text cannot be turned into a typed function (e.g. conflicting type hints). */
export class TemplateError extends PromptlockError {
  override name = 'TemplateError';
}

/** Several independent failures gathered so one bad item does not hide the others. */
export class AggregatePromptlockError extends PromptlockError {
  override name = 'AggregatePromptlockError';
  readonly errors: readonly PromptlockError[];
  constructor(message: string, errors: readonly PromptlockError[]) {
    super(message, { exitCode: errors.some((e) => e.exitCode === 1) ? 1 : 2 });
    this.errors = errors;
  }
}
