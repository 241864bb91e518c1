/** What a list proves: the published version of each item named with one, never a draft's. */
import { describe, expect, it } from 'vitest';
import { readListing } from '../../src/sync/list-names.js';

const item = (packageName: string, extra: Record<string, unknown> = {}) => ({
  id: `pmt_${packageName}`,
  title: 't',
  packageName,
  ...extra,
});

describe('readListing', () => {
  it('records the version of versioned names, full or bare, and none for drafts or unversioned names', () => {
    const listing = readListing(
      [
        item('@ws/a:v7'),
        item('b:v3', { workspaceSlug: 'ws' }),
        item('c:v2'),
        item('@ws/draft-only:v0'),
        item('@ws/plain'),
        item('@ws/pinned:latest'),
      ],
      'home',
    );
    expect(listing.names).toEqual(['@home/c', '@ws/a', '@ws/b', '@ws/draft-only', '@ws/pinned', '@ws/plain']);
    expect(Object.fromEntries(listing.versions)).toEqual({ '@ws/a': 'v7', '@ws/b': 'v3', '@home/c': 'v2' });
  });
});
