/**
 * Hard limits on what promptlock accepts from outside (the service, the lockfile, the snapshots
 * folder). Each has a default here and a config option under `limits` that raises or lowers it;
 * a service cannot raise any of them. docs/security.md lists them with the threat each bounds.
 */

export interface Limits {
  /** Bytes of one prompt as JSON (all its texts and fields together). */
  promptBytes: number;
  /** `{{placeholders}}` in one prompt's three texts together. */
  placeholders: number;
  /** Nesting depth of any JSON value promptlock reads (a prompt, a list page, the lockfile). */
  jsonDepth: number;
  /** Pages of `GET /v1/prompts` in one listing. */
  listPages: number;
  /** Items of `GET /v1/prompts` in one listing, over all pages. */
  listItems: number;
  /** Bytes of every page of one listing together: pages and items are each bounded, their product is not. */
  listBytes: number;
  /** Bytes of one JSON response body (a list page, a prompt, an error). */
  responseBytes: number;
  /** Bytes of one downloaded context file, whatever `fileSize` the service announces. */
  contextFileBytes: number;
  /** Bytes of every prompt one run fetches, together (their snapshots). */
  totalBytes: number;
  /** Bytes of every context file one run downloads, together. */
  totalContextFileBytes: number;
  /** Seconds one run may spend with the service (listing, gets, downloads, waits): each request has its deadline, a run has this one. */
  runSeconds: number;
}

export type LimitName = keyof Limits;

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  promptBytes: 1_000_000,
  placeholders: 2_000,
  jsonDepth: 64,
  listPages: 1_000,
  listItems: 100_000,
  listBytes: 128 * 1024 * 1024,
  responseBytes: 16 * 1024 * 1024,
  contextFileBytes: 100 * 1024 * 1024,
  totalBytes: 100_000_000,
  totalContextFileBytes: 512 * 1024 * 1024,
  // An hour: 60,000 gets at the service's 1,000 a minute, far beyond any real workspace.
  runSeconds: 3_600,
});

export const LIMIT_NAMES = Object.keys(DEFAULT_LIMITS) as LimitName[];

/** How an error names a limit and the option that changes it: `1000 (option "limits.listPages" in the config; default 1000)`. */
export function describeLimit(name: LimitName, limits: Readonly<Limits> = DEFAULT_LIMITS): string {
  return `${limits[name]} (option "limits.${name}" in the config; default ${DEFAULT_LIMITS[name]})`;
}

/**
 * The most bytes promptlock reads from one file of the snapshots folder: a context file at its
 * limit, or a snapshot (its prompt, within `promptBytes`, pretty-printed with hidden characters
 * escaped). The caps of the project's other files are fixed (FILE_BYTES, src/util/read-bounded.ts).
 */
export function storeFileBytes(limits: Readonly<Limits> = DEFAULT_LIMITS): number {
  return Math.max(limits.contextFileBytes, 16 * limits.promptBytes);
}
