import { ServiceError } from '../errors.js';
import type { PromptSummary } from '../types.js';
import { readJsonBody } from './read-json-body.js';
import { listPageSchema } from './schemas.js';
import type { ServiceTransport } from './service-transport.js';
import { MAX_JSON_BYTES } from './service-transport.js';

/** The service's largest page (service facts: `limit` 1 to 100). */
export const MAX_PAGE_SIZE = 100;

/**
 * Every prompt the service lists, page by page until `hasMore` is false. A cursor that does not
 * advance would loop forever, so it is an error.
 */
export async function listAll(transport: ServiceTransport, basePath: string, pageSize = MAX_PAGE_SIZE): Promise<PromptSummary[]> {
  const limit = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(pageSize)));
  const items: PromptSummary[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const query = new URLSearchParams({ limit: String(limit) });
    if (cursor !== undefined) query.set('cursor', cursor);
    const result = await transport.service({
      method: 'GET',
      path: `${basePath}/v1/prompts?${query}`,
      target: { method: 'GET', endpoint: '/v1/prompts', what: page === 1 ? 'listing prompts' : `listing prompts (page ${page})` },
      maxBytes: MAX_JSON_BYTES,
      interpret: (answer) => readJsonBody(answer, listPageSchema, 'prompts'),
    });
    // One by one: spreading a page of 200,000 items into push() overflows the stack.
    for (const item of result.prompts as PromptSummary[]) items.push(item);
    if (!result.hasMore) return items;
    const next = result.cursor ?? '';
    if (next === '' || seenCursors.has(next) || next === cursor) {
      const shown = next === '' ? 'no cursor' : `the cursor ${JSON.stringify(next)} again`;
      throw new ServiceError(
        `The service's prompt list does not advance: page ${page} says hasMore: true but gives ${shown}. Stopped after ${items.length} prompts to avoid an endless loop.`,
        { code: 'invalid_response', hint: 'This is a fault of the service; report it, or try again later.' },
      );
    }
    seenCursors.add(next);
    cursor = next;
  }
}
