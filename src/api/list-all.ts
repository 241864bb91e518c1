import { createHash } from 'node:crypto';
import { ServiceError } from '../errors.js';
import type { Limits } from '../limits.js';
import type { PromptSummary } from '../types.js';
import { describeIssue } from '../util/describe-issue.js';
import { readJson } from './read-json-body.js';
import { listPageSchema, unwrapEnvelope } from './schemas.js';
import { limitText, serviceText } from './service-errors.js';
import { InvalidBody, type ServiceTransport } from './service-transport.js';

/** The service's largest page (docs/service-interface.md, "Operations": `limit` 1 to 100). */
const MAX_PAGE_SIZE = 100;

/**
 * The service's prompt list, one validated page at a time, until `hasMore` is false: a sync starts
 * fetching with the first page while the next ones arrive (docs/performance.md). The next page is
 * asked for only when the caller asks for it. The listing is bounded whatever the service says
 * (docs/security.md): at most `limits.listPages` pages, each at most `limits.responseBytes` bytes,
 * `limits.listBytes` bytes and `limits.listItems` prompts over all pages. A cursor that does not
 * advance would loop forever, so it is an error too.
 */
export async function* listPages(
  transport: ServiceTransport,
  basePath: string,
  limits: Readonly<Limits>,
  pageSize = MAX_PAGE_SIZE,
): AsyncGenerator<PromptSummary[], void, undefined> {
  const limit = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(pageSize)));
  let listed = 0;
  let listedBytes = 0;
  // Digests, so a service sending huge cursors cannot make this set huge.
  const seenCursors = new Set<string>();
  const digest = (text: string) => createHash('sha256').update(text).digest('base64');
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    if (page > limits.listPages) {
      throw new ServiceError(
        `The service's prompt list has more than ${limits.listPages} pages (${listed} prompts so far), ${limitText('listPages', limits)}; stopped listing.`,
        { code: 'too_large', hint: 'Raise the limit in the config if the workspace really lists this many prompts.' },
      );
    }
    const query = new URLSearchParams({ limit: String(limit) });
    if (cursor !== undefined) query.set('cursor', cursor);
    const result = await transport.service({
      method: 'GET',
      path: `${basePath}/v1/prompts?${query}`,
      target: { method: 'GET', endpoint: '/v1/prompts', what: page === 1 ? 'listing prompts' : `listing prompts (page ${page})` },
      maxBytes: limits.responseBytes,
      sizeLimit: limitText('responseBytes', limits),
      interpret: (answer) => {
        listedBytes += answer.body.length;
        if (listedBytes > limits.listBytes) {
          throw new ServiceError(
            `The service's prompt list takes more than ${limits.listBytes} bytes (page ${page} brings it to ${listedBytes}), ${limitText('listBytes', limits)}; stopped listing.`,
            { code: 'too_large', hint: 'Raise the limit in the config if the workspace really lists this much.' },
          );
        }
        const data = unwrapEnvelope(readJson(answer), 'prompts');
        // Counted before validation: a page of 200,000 items is refused without checking each.
        const count = Array.isArray((data as { prompts?: unknown })?.prompts) ? (data as { prompts: unknown[] }).prompts.length : 0;
        if (listed + count > limits.listItems) {
          throw new ServiceError(
            `The service's prompt list has more than ${limits.listItems} prompts (page ${page} brings it to ${listed + count}), ${limitText('listItems', limits)}; stopped listing.`,
            { code: 'too_large', hint: 'Raise the limit in the config if the workspace really lists this many prompts.' },
          );
        }
        const parsed = listPageSchema.safeParse(data);
        // The same page comes back on a retry: the field is named at once.
        if (!parsed.success) throw new InvalidBody(describeIssue(parsed.error), { retry: false });
        return parsed.data;
      },
    });
    const items = result.prompts as PromptSummary[];
    listed += items.length;
    // A page that does not advance is refused before it is handed out: its items are not trusted either.
    const next = result.cursor ?? '';
    if (result.hasMore && (next === '' || seenCursors.has(digest(next)))) {
      const shown = next === '' ? 'no cursor' : `the cursor ${JSON.stringify(serviceText(next, 100))} again`;
      throw new ServiceError(
        `The service's prompt list does not advance: page ${page} says hasMore: true but gives ${shown}. Stopped after ${listed} prompts to avoid an endless loop.`,
        { code: 'invalid_response', hint: 'This is a fault of the service; report it, or try again later.' },
      );
    }
    yield items;
    if (!result.hasMore) return;
    seenCursors.add(digest(next));
    cursor = next;
  }
}

/** Every prompt the service lists: `listPages` to the end, with the same limits and errors. */
export async function listAll(
  transport: ServiceTransport,
  basePath: string,
  limits: Readonly<Limits>,
  pageSize = MAX_PAGE_SIZE,
): Promise<PromptSummary[]> {
  const items: PromptSummary[] = [];
  // One by one: spreading a page of 200,000 items into push() overflows the stack.
  for await (const page of listPages(transport, basePath, limits, pageSize)) for (const item of page) items.push(item);
  return items;
}
