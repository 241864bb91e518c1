/**
 * Fetches one prompt and turns it into what the store keeps: the snapshot text, its lock entry
 * (version, id, integrity, variables) and, when asked, its context files.
 */
import { RefusedPromptError, ServiceError } from '../errors.js';
import type { Limits } from '../limits.js';
import { formatPackageName, parsePackageName, recordedName, type Selector } from '../package-name.js';
import { describeProblem, validatePrompt } from '../prompt-grammar.js';
import { integrityOf } from '../store/integrity.js';
import type { LockEntry, LockedFile } from '../store/lockfile-format.js';
import { contextFileNames, snapshotFile } from '../store/snapshot-format.js';
import type { StagedFile, Stager } from '../store/staged-file.js';
import { listVariables, type PlaceholderReading } from '../template/index.js';
import { type ContextItem, type Prompt, promptTexts } from '../types.js';
import { haltsRun } from './for-each-prompt.js';
import type { FetchedPrompt, ReusableFile, SyncClient } from './types.js';

/** Largest context file downloaded when the service does not give its size. */
const MAX_CONTEXT_FILE_BYTES = 100 * 1024 * 1024;

/** Lock entry and snapshot text for a prompt already in hand, its placeholders read by `reading` (README, "Placeholders"). */
export function lockPrompt(
  name: string,
  selector: Selector | null,
  prompt: Prompt,
  reading?: PlaceholderReading,
): Omit<FetchedPrompt, 'files'> {
  const { text: snapshot, integrity } = snapshotFile(prompt);
  const entry: LockEntry = {
    selector,
    version: prompt.version,
    id: prompt.id,
    integrity,
    ...(reading === undefined ? {} : { placeholders: reading }),
    variables: listVariables(promptTexts(prompt), name, reading),
  };
  return { name, prompt, snapshot, entry };
}

/**
 * The service's answer to a get of `name`, named as promptlock records it: the name asked for with
 * the version the answer carries, whichever form the answer used (bare slug, full, versioned). An
 * answer for another workspace or package is refused with both names.
 */
export function answeredPrompt(name: string, prompt: Prompt): Prompt {
  const check = recordedName(name, prompt);
  if (!check.ok) {
    throw new ServiceError(`The service's answer for ${name} is refused: ${check.problem}.`, {
      code: 'invalid_response',
      hint: 'Nothing was written. Check that the base URL and key are those of the service holding this prompt (or report the service fault).',
    });
  }
  return check.name === prompt.packageName ? prompt : { ...prompt, packageName: check.name };
}

export interface FetchOptions {
  /** Download file context items (`contextFiles: true`). */
  withFiles: boolean;
  /** Files of the previous lock entry still on disk and intact, by context item id. */
  reusable?: ReadonlyMap<string, ReusableFile>;
  /** Ask for exactly this version instead of the selector (frozen installs). */
  exactVersion?: string;
  /** The config's limits (defaults when absent). */
  limits?: Readonly<Limits> | undefined;
  /** The configured API key: a prompt that holds it is refused. */
  apiKey?: string | undefined;
  /** Where downloaded files are staged: needed with `withFiles`. */
  stager?: Stager | undefined;
  /** How its placeholders are read (the config's `placeholders`); the grammar alone when absent. */
  placeholders?: PlaceholderReading | undefined;
}

/**
 * Downloads a context file to a staged file, hashed and counted as it arrives: memory holds a few
 * chunks, never the file. On any failure the staged file is removed, and the failure is one of
 * the file (`fileError`), never of the prompt.
 */
async function downloadToStage(client: SyncClient, stager: Stager | undefined, name: string, item: ContextItem): Promise<StagedFile> {
  if (!stager) throw new Error('fetchPrompt: context files are downloaded only with a stager');
  try {
    const { url } = await client.getContextDownloadUrl(item.id);
    const file = await stager.create();
    try {
      await client.downloadFileTo(
        url,
        { maxBytes: item.fileSize ?? MAX_CONTEXT_FILE_BYTES, ...(item.fileSize == null ? {} : { expectedSize: item.fileSize }) },
        file,
      );
      return await file.finish();
    } catch (error) {
      await file.discard();
      throw error;
    }
  } catch (error) {
    throw fileError(error, name, item);
  }
}

/**
 * A context file that could not be fetched, as an error of that file: the answer of a file
 * endpoint (a 404 of the download address or of the file itself) never reads as the prompt's own
 * answer, so no rule that takes a 404 for "no published version" can drop a locked prompt for it
 * (docs/service-interface.md, "Context files"). What ends the run (a key refused, the service
 * down, a run total) stays as it is.
 */
function fileError(error: unknown, name: string, item: ContextItem): unknown {
  if (!(error instanceof ServiceError) || haltsRun(error) || error.status === 401 || error.status === 403) return error;
  const file = item.fileName ? `${JSON.stringify(item.fileName)} (${item.id})` : item.id;
  return new ServiceError(`The context file ${file} of ${name} could not be fetched: ${error.message}`, {
    code: 'context_file',
    cause: error,
    hint: `${error.hint ? `${error.hint} ` : ''}Nothing was written; ${name} stays as locked. Run sync again once the service serves the file, or sync without contextFiles.`,
  });
}

export async function fetchPrompt(
  client: SyncClient,
  name: string,
  selector: Selector | null,
  options: FetchOptions,
): Promise<FetchedPrompt> {
  const parsed = parsePackageName(name)!;
  const asked = options.exactVersion ?? selector ?? undefined;
  const answer = await client.getPrompt(formatPackageName({ ...parsed, selector: asked as Selector | undefined }));
  // Before anything is compared, stored or generated: every field by its grammar, the limits, the key.
  const check = validatePrompt(answer, { limits: options.limits, apiKey: options.apiKey });
  if (!check.ok) {
    const { problem } = check;
    const reason = describeProblem(problem);
    const fix = problem.limit
      ? `Raise "limits.${problem.limit}" in the config if this prompt is legitimate`
      : 'Fix the prompt on the service (or report the service fault)';
    throw new RefusedPromptError(`The service's answer for ${name} is refused: ${reason}.`, {
      field: problem.field,
      reason,
      fix,
      hint: problem.limit ? `${fix}; nothing was written.` : `Nothing was written. ${fix}.`,
    });
  }
  const prompt = check.prompt;
  const locked = lockPrompt(name, selector, answeredPrompt(name, prompt), options.placeholders);
  const files: FetchedPrompt['files'] = [];
  if (options.withFiles) {
    const lockedFiles: Record<string, LockedFile> = {};
    // Named by the snapshot format (serve finds them by the same names), bounded before anything is
    // staged: a name too long for the disk would fail after the commit point.
    const names = contextFileNames(prompt.context);
    for (const item of prompt.context) {
      if (item.type !== 'file') continue;
      const fileName = names.get(item.id)!;
      const path = `${parsed.workspace}/${parsed.package}.files/${fileName}`;
      const reuse = options.reusable?.get(item.id);
      if (reuse && reuse.locked.path === path && (item.fileSize == null || item.fileSize === reuse.locked.size)) {
        lockedFiles[item.id] = { path, size: reuse.content.byteLength, integrity: integrityOf(reuse.content) };
        files.push({ path, content: reuse.content });
        continue;
      }
      const staged = await downloadToStage(client, options.stager, name, item);
      lockedFiles[item.id] = { path, size: staged.size, integrity: staged.integrity };
      files.push({ path, content: staged });
    }
    if (Object.keys(lockedFiles).length > 0) locked.entry.files = lockedFiles;
  }
  return { ...locked, files };
}
