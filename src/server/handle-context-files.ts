/**
 * Context-file download, as the hosted service does it (docs/service-interface.md, "Operations"): the API answers a
 * short-lived signed URL, and the file is fetched from that URL without the API key. Files are
 * only ever found by id in the catalog, never by a path taken from the request.
 */
import { constants, promises as fs } from 'node:fs';
import { ApiError, echo } from './api-error.js';
import type { Catalog } from './catalog.js';
import { callerWorkspace, type Reply, type RouteContext } from './route-context.js';
import { FILE_ROUTE_PREFIX } from './url-signer.js';

/** `GET /api/v1/prompts/context/download-url?contextId=…` → `{ url, expiresIn }`. */
export function handleDownloadUrl(ctx: RouteContext): Reply {
  const contextId = ctx.query.get('contextId');
  if (!contextId) {
    throw new ApiError(400, 'validation_error', 'contextId is required: pass the id of a context item of type "file".', {
      field: 'contextId',
    });
  }
  const file = ctx.catalog.files.get(contextId);
  const scope = callerWorkspace(ctx.caller);
  if (file && scope !== undefined && scope !== file.workspace) {
    throw new ApiError(403, 'forbidden', `This API key has no access to workspace "${file.workspace}".`, { workspace: file.workspace });
  }
  if (!file) {
    // A `url` item has an id too, but nothing to download: the service calls that a bad request.
    const urlItem = urlItemWorkspace(ctx.catalog, contextId);
    if (urlItem !== undefined && scope !== undefined && scope !== urlItem) {
      throw new ApiError(403, 'forbidden', `This API key has no access to workspace "${urlItem}".`, { workspace: urlItem });
    }
    if (urlItem !== undefined) {
      throw new ApiError(
        400,
        'validation_error',
        `Context item ${JSON.stringify(echo(contextId))} is of type "url": only "file" items have a download URL; fetch its url directly.`,
        {
          field: 'contextId',
        },
      );
    }
    throw new ApiError(404, 'not_found', `Context file ${JSON.stringify(echo(contextId))} not found.`);
  }
  return { status: 200, json: { url: `${ctx.baseUrl}${ctx.signer.sign(contextId)}`, expiresIn: ctx.signer.ttlSeconds } };
}

/** The workspace of the `url`-type context item with this id, if any version of any prompt has one. */
function urlItemWorkspace(catalog: Catalog, contextId: string): string | undefined {
  for (const pkg of catalog.packages) {
    const versions = pkg.draft ? [...pkg.published.values(), pkg.draft] : pkg.published.values();
    for (const version of versions) {
      if (version.prompt.context?.some((item) => item.id === contextId && item.type === 'url')) return pkg.workspace;
    }
  }
  return undefined;
}

/** `GET /files/<contextId>?expires=…&signature=…`: the bytes, no key needed. */
export async function handleFile(ctx: RouteContext): Promise<Reply> {
  let contextId: string;
  try {
    contextId = decodeURIComponent(ctx.pathname.slice(FILE_ROUTE_PREFIX.length));
  } catch {
    throw new ApiError(404, 'not_found', 'Context file not found.');
  }
  const check = ctx.signer.check(contextId, ctx.query.get('expires'), ctx.query.get('signature'));
  if (check === 'expired') {
    throw new ApiError(403, 'forbidden', 'This download URL has expired: ask /api/v1/prompts/context/download-url for a new one.');
  }
  if (check === 'invalid') {
    throw new ApiError(
      403,
      'forbidden',
      'This download URL is not validly signed: use the url answered by /api/v1/prompts/context/download-url unchanged.',
    );
  }
  const file = ctx.catalog.files.get(contextId);
  if (!file) throw new ApiError(404, 'not_found', 'Context file not found: it was removed from the served folder.');
  const bytes = await readServedFile(file.path);
  if (bytes === undefined) throw new ApiError(404, 'not_found', 'Context file not found: it was removed from the served folder.');
  if (bytes === 'link') {
    throw new ApiError(403, 'forbidden', 'Context file refused: a symbolic link replaced it in the served folder since it was loaded.');
  }
  return {
    status: 200,
    bytes,
    contentType: file.mimeType,
    headers: { 'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.fileName)}` },
  };
}

/**
 * The bytes of a context file at the real path checked when the folder was loaded, read only when
 * no link has taken its place since (docs/security.md, "`promptlock serve`"): the file itself is opened
 * without following a link, no folder on its way is a link (its real path is unchanged), and the
 * file opened is the one at that path (same inode), so a folder swapped for a link and back
 * between the checks is caught too. `undefined`: the file is gone.
 */
async function readServedFile(file: string): Promise<Buffer | 'link' | undefined> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ELOOP' ? 'link' : undefined;
  }
  try {
    const [opened, real] = await Promise.all([handle.stat(), fs.realpath(file)]);
    if (real !== file) return 'link';
    if (!opened.isFile()) return undefined;
    const atPath = await fs.stat(real);
    if (atPath.ino !== opened.ino || atPath.dev !== opened.dev) return 'link';
    return await handle.readFile();
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
