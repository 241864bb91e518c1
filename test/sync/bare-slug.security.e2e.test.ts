/**
 * Finding 13: a list item named by a bare slug whose workspace is missing (and no `workspace` in
 * the config) or not a slug gets an error naming the item, never a request for
 * `@undefined/undefined`.
 */
import { beforeAll, expect, it } from 'vitest';
import { disposables } from '../helpers/disposables.js';
import { type HostileService, startHostileService } from '../helpers/hostile-service.js';
import { cli } from '../helpers/valid-prompt.js';

const { project, defer } = disposables();
let service: HostileService;
let items: unknown[] = [];

beforeAll(async () => {
  service = await startHostileService({ list: () => ({ prompts: items, hasMore: false }), get: () => ({ error: 'not_found' }) });
  defer(() => service.close());
});

it.each([
  [
    'no workspaceSlug',
    { id: 'pmt_7', title: 't', packageName: 'welcome' },
    /"welcome" \(id pmt_7\) by a bare slug, and no workspace is configured/,
  ],
  [
    'a workspaceSlug that is not a slug',
    { id: 'pmt_8', title: 't', packageName: 'welcome', workspaceSlug: '../Evil WS' },
    /"welcome" \(id pmt_8\).*invalid workspaceSlug "\.\.\/Evil WS"/,
  ],
  [
    'a workspaceSlug that is not a string',
    { id: 'pmt_9', title: 't', packageName: 'welcome', workspaceSlug: { x: 1 } },
    /"welcome" \(id pmt_9\).*invalid workspaceSlug/,
  ],
])('a bare slug with %s is a clear error naming the item', async (_, item, message) => {
  items = [item];
  service.requests.length = 0;
  const dir = await project({ baseUrl: service.url });
  const run = await cli(['sync'], dir);
  expect(run.code, run.stderr).toBe(1);
  expect(run.stderr).toMatch(message);
  expect(run.stderr).not.toMatch(/undefined|unexpected failure/i);
  expect(service.requests.filter((r) => r.startsWith('POST'))).toEqual([]);
});
