/**
 * Why a target did not resolve, in the words a user acts on (src/sync/resolve-from-service.ts): a
 * prompt refused by its own grammar or a limit, a glob's package with no published version, a
 * merged lockfile's version the service does not have, a name the service does not know.
 */
import { RefusedPromptError, ServiceError, TemplateError } from '../errors.js';
import { parsePackageName } from '../package-name.js';
import type { MergeDecision } from '../store/lockfile-merge.js';
import { editDistance, nearMatches } from '../util/edit-distance.js';
import { pluralise } from '../util/pluralise.js';
import type { SkippedPrompt, Target } from './types.js';

/**
 * Why a prompt is refused, as a skip says it, when the failure is the prompt's own: a field that
 * breaks its grammar or a limit (`validatePrompt`), or placeholders that make no typed function
 * (`TemplateError`). Undefined for any other failure (a 404, a failing service).
 */
export function refusalOf(error: unknown): Omit<SkippedPrompt, 'name'> | undefined {
  // Said after a `;` in the skip's line: `…; use one type for "count" everywhere…`.
  const clause = (text: string) => text.charAt(0).toLowerCase() + text.slice(1).replace(/\.$/, '');
  if (error instanceof RefusedPromptError) return { reason: error.reason, refused: true, field: error.field, fix: clause(error.fix) };
  if (!(error instanceof TemplateError)) return undefined;
  return {
    reason: error.message.replace(/\.$/, ''),
    refused: true,
    ...(error.field === undefined ? {} : { field: error.field }),
    ...(error.line === undefined ? {} : { line: error.line }),
    ...(error.hint === undefined ? {} : { fix: clause(error.hint) }),
  };
}

/**
 * Why a prompt the list named for a glob (or "every prompt") is skipped: its get answered 404 for
 * the glob's selector, so the package has only a draft (`latest`, or none) or no draft (`:draft`).
 * Not an error: the config never asked for it by name. Only the get's own 404 counts: a context
 * file's failure is an error of the file (src/sync/fetch-prompt.ts), never a reason to skip.
 */
export function skipReason(error: unknown, target: Target, fromList: ReadonlySet<string>): Omit<SkippedPrompt, 'name'> | undefined {
  if (!(error instanceof ServiceError) || error.status !== 404 || !fromList.has(target.name)) return undefined;
  if (target.selector === null || target.selector === 'latest') {
    return { reason: 'no published version yet', fix: `add "${target.name}:draft" to follow its draft` };
  }
  return target.selector === 'draft' ? { reason: 'no draft' } : undefined;
}

/**
 * A 404 for a version only one side of a merged lockfile locked: the service never had it (or no
 * longer has it), so the merge must not keep it.
 */
export function notConfirmed(error: unknown, decision: MergeDecision): unknown {
  if (!(error instanceof ServiceError) || error.status !== 404) return error;
  const side = decision.kept === 'ours' ? 'this branch' : 'the branch being merged';
  return new ServiceError(
    `${decision.name} ${decision.version}, which only ${side} locked in the merged lockfile, is not on the service (404): the merge would keep a version the service does not have.`,
    {
      status: 404,
      code: 'not_found',
      hint: `Look at the commit of ${side} that locked it. To drop it, take the other side of the lockfile conflict (\`git checkout --${decision.kept === 'ours' ? 'theirs' : 'ours'} -- <lockfile>\`), then run \`promptlock sync\`.`,
      cause: error,
    },
  );
}

/**
 * A 404 for a name the config asks for: either the package exists but not at that selector, or
 * the package is unknown, with the names the service does list that come close.
 */
export async function explainNotFound(error: unknown, target: Target, listed: () => Promise<string[]>, baseUrl: string): Promise<unknown> {
  if (!(error instanceof ServiceError) || error.status !== 404) return error;
  const { name, selector } = target;
  let names: string[] | undefined;
  try {
    names = await listed();
  } catch (listing) {
    // The explanation is a courtesy; the 404 is what matters, unless the address is not a service at all.
    if (listing instanceof ServiceError && listing.code === 'not_a_service') return listing;
  }
  if (names?.includes(name)) {
    const published = selector === null || selector === 'latest';
    const what = selector === 'draft' ? 'no draft' : published ? 'no published version' : `no version ${selector}`;
    return new ServiceError(`${name} exists, but has ${what} on the service (404).`, {
      status: 404,
      code: 'not_found',
      hint: published
        ? `Publish a version of ${name}, or follow its draft: ask for "${name}:draft" in the config.`
        : `Change the selector of ${name} in the config (the service lists the package, so the name is right).`,
      cause: error,
    });
  }
  const asked = selector ? `${name}:${selector}` : name;
  const workspace = parsePackageName(name)?.workspace ?? '';
  const workspaces = new Set((names ?? []).map((n) => parsePackageName(n)?.workspace ?? ''));
  if (names !== undefined && !workspaces.has(workspace)) {
    // Nothing of its workspace at all: the name is not what is wrong, or not only. Another server
    // answering on the address (a port another `serve` holds), or a key for other workspaces.
    const near = nearMatches(workspace, workspaces).map((ws) => `"${ws}"`);
    const shown = [...workspaces]
      .sort()
      .slice(0, 5)
      .map((ws) => `"${ws}"`);
    const lists =
      names.length === 0
        ? 'lists no prompt at all'
        : `lists ${pluralise(names.length, 'prompt')}, none in workspace "${workspace}" (${pluralise(workspaces.size, 'workspace')}: ${shown.join(', ')}${workspaces.size > shown.length ? ', …' : ''})`;
    return new ServiceError(`Prompt ${asked} was not found (404): the service at ${baseUrl} ${lists}.`, {
      status: 404,
      code: 'not_found',
      hint: `${near.length > 0 ? `Did you mean workspace ${near.join(', ')}? ` : ''}Check that baseUrl (or PROMPTLOCK_BASE_URL) is the service you mean, not another server on that address, and that your API key can read workspace "${workspace}".`,
      cause: error,
    });
  }
  const suggestions = closeMatches(
    name,
    (names ?? []).filter((n) => n !== name),
  );
  const hint =
    suggestions.length > 0
      ? `Did you mean ${suggestions.join(', ')}?`
      : 'Check the name in the config, and that your key can read its workspace.';
  return new ServiceError(`Prompt ${asked} was not found on the service (404).`, { status: 404, code: 'not_found', hint, cause: error });
}

/** Suggestions for a name the service does not know ("did you mean …"): up to `limit`, closest first. */
export function closeMatches(name: string, candidates: readonly string[], limit = 3): string[] {
  const threshold = Math.max(3, Math.floor(name.length / 3));
  return candidates
    .map((candidate) => ({ candidate, d: editDistance(name, candidate) }))
    .filter(({ candidate, d }) => d <= threshold || candidate.includes(name.split('/')[1] ?? name))
    .sort((x, y) => x.d - y.d || x.candidate.localeCompare(y.candidate))
    .slice(0, limit)
    .map(({ candidate }) => candidate);
}
