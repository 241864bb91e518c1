/**
 * `GET /v1/prompts?limit=&cursor=`: the caller's prompts, one item per package, in a stable
 * order. The cursor names the last package returned (opaque to clients), so pages stay exact even
 * when prompts are added or removed between pages.
 */

import type { PromptSummary } from '../types.js';
import { ApiError } from './api-error.js';
import { comparePackages } from './catalog.js';
import { callerWorkspace, type Reply, type RouteContext } from './route-context.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

interface Position {
  workspace: string;
  package: string;
}

function encodeCursor(after: Position): string {
  return Buffer.from(`c1:${after.workspace}/${after.package}`).toString('base64url');
}

function decodeCursor(cursor: string): Position {
  const text = /^[A-Za-z0-9_-]{1,400}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^c1:([a-z0-9-]+)\/([a-z0-9-]+)$/.exec(text);
  if (!match) {
    throw new ApiError(400, 'validation_error', "cursor is not one this service issued: pass the previous page's cursor unchanged.", {
      field: 'cursor',
    });
  }
  return { workspace: match[1]!, package: match[2]! };
}

function parseLimit(raw: string | null): number {
  if (raw === null) return DEFAULT_LIMIT;
  if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_LIMIT) {
    throw new ApiError(400, 'validation_error', `limit must be an integer from 1 to ${MAX_LIMIT} (got "${raw.slice(0, 20)}").`, {
      field: 'limit',
    });
  }
  return Number(raw);
}

/** The item in the name form asked for (`--list-names`): the hosted service answers all three. */
function listItem(summary: PromptSummary, form: RouteContext['listNames']): PromptSummary {
  if (form === 'versioned') return { ...summary, packageName: `${summary.packageName}:${String(summary.version)}` };
  if (form === 'bare') return { ...summary, packageName: summary.packageName.slice(summary.packageName.indexOf('/') + 1) };
  return summary;
}

export function handleList(ctx: RouteContext): Reply {
  const limit = parseLimit(ctx.query.get('limit'));
  const cursor = ctx.query.get('cursor');
  const { packages, workspaces } = ctx.catalog;
  const scope = callerWorkspace(ctx.caller);
  const range = scope === undefined ? { start: 0, end: packages.length } : (workspaces.get(scope) ?? { start: 0, end: 0 });
  let start = range.start;
  if (cursor !== null && cursor !== '') {
    const after = decodeCursor(cursor);
    // First package ordered after the cursor: a binary search over the sorted list.
    let low = range.start;
    let high = range.end;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (comparePackages(packages[mid]!, after) <= 0) low = mid + 1;
      else high = mid;
    }
    start = low;
  }
  const end = Math.min(start + limit, range.end);
  const page = packages.slice(start, end);
  const last = page[page.length - 1];
  return {
    status: 200,
    json: {
      prompts: page.map((pkg) => listItem(pkg.summary, ctx.listNames)),
      // Always a string (its type in docs/service-interface.md); past the end it keeps pointing at the end.
      cursor: last ? encodeCursor(last) : (cursor ?? ''),
      hasMore: end < range.end,
    },
  };
}
