import { describe, expect, it } from 'vitest';
import { parseRequestedEntry, requestedEntries, selectorFor } from '../../src/config/prompt-entry.js';
import { ConfigError, ServiceError } from '../../src/errors.js';
import { emptyLockfile, type LockEntry } from '../../src/store/lockfile-format.js';
import { compareConfigWithLock } from '../../src/sync/check.js';
import { listedNames } from '../../src/sync/list-names.js';
import { closeMatches } from '../../src/sync/resolve-errors.js';

const item = (packageName: string, extra: Record<string, unknown> = {}) => ({
  id: `pmt_${packageName}`,
  title: 't',
  packageName,
  ...extra,
});

describe('listedNames', () => {
  const cases: Array<[string, { given: ReturnType<typeof item>[]; workspace?: string; want: string[] }]> = [
    ['full names', { given: [item('@acme/b'), item('@acme/a')], want: ['@acme/a', '@acme/b'] }],
    ['versioned names', { given: [item('@acme/a:v1'), item('@acme/a:v2')], want: ['@acme/a'] }],
    ['bare slugs with the configured workspace', { given: [item('prompt-1')], workspace: 'acme', want: ['@acme/prompt-1'] }],
    ['bare slugs with the item workspaceSlug', { given: [item('prompt-1', { workspaceSlug: 'globex' })], want: ['@globex/prompt-1'] }],
    [
      'the item workspaceSlug wins over the configured workspace',
      { given: [item('p', { workspaceSlug: 'globex' })], workspace: 'acme', want: ['@globex/p'] },
    ],
    ['a mix', { given: [item('@acme/x:v3'), item('y'), item('@globex/z')], workspace: 'acme', want: ['@acme/x', '@acme/y', '@globex/z'] }],
  ];
  it.each(cases)('%s', (_name, { given, workspace, want }) => {
    expect(listedNames(given, workspace)).toEqual(want);
  });

  it('asks for `workspace` when the service lists bare slugs and none is known', () => {
    expect(() => listedNames([item('prompt-1')], undefined)).toThrow(ServiceError);
    expect(() => listedNames([item('prompt-1')], undefined)).toThrow(
      'The service lists prompt "prompt-1" (id pmt_prompt-1) by a bare slug, and no workspace is configured.',
    );
  });

  it('rejects a name that is neither', () => {
    expect(() => listedNames([item('@Acme/X')], 'acme')).toThrow('invalid packageName "@Acme/X"');
  });
});

describe('requested entries', () => {
  it.each([
    ['@acme/x', { kind: 'exact', name: '@acme/x', selector: null }],
    ['@acme/x:v3', { kind: 'exact', name: '@acme/x', selector: 'v3' }],
    ['@acme/x:draft', { kind: 'exact', name: '@acme/x', selector: 'draft' }],
    ['@acme/*', { kind: 'glob', workspace: 'acme', selector: 'latest' }],
    ['@acme/*:draft', { kind: 'glob', workspace: 'acme', selector: 'draft' }],
  ])('%s', (raw, want) => {
    expect(parseRequestedEntry(raw)).toMatchObject(want);
  });

  it('rejects anything else', () => {
    expect(() => parseRequestedEntry('acme/x')).toThrow(ConfigError);
  });

  it('an exact entry wins over a glob; nothing requested means everything at latest', () => {
    const entries = requestedEntries(['@acme/*:draft', '@acme/x:v2']);
    expect(selectorFor(entries, '@acme/x')).toBe('v2');
    expect(selectorFor(entries, '@acme/y')).toBe('draft');
    expect(selectorFor(entries, '@globex/y')).toBeUndefined();
    expect(selectorFor([], '@globex/y')).toBe('latest');
  });
});

describe('compareConfigWithLock', () => {
  const entry = (selector: string | null): LockEntry => ({ selector, version: 'v1', id: 'i', integrity: 'sha256-AA==', variables: [] });
  const lock = (prompts: Record<string, LockEntry>) => ({ ...emptyLockfile(), prompts });
  const read = (placeholders: LockEntry['placeholders']): LockEntry => ({ ...entry('latest'), placeholders });
  const cases: Array<
    [
      string,
      { config: string[]; locked: Record<string, LockEntry>; placeholders?: Record<string, 'sdk' | { text: string[] }>; want: string[] },
    ]
  > = [
    ['agree', { config: ['@acme/a:v1', '@acme/*'], locked: { '@acme/a': entry('v1'), '@acme/b': entry('latest') }, want: [] }],
    ['everything at latest', { config: [], locked: { '@acme/a': entry('latest') }, want: [] }],
    ['requested, not locked', { config: ['@acme/a'], locked: {}, want: ['@acme/a is in the config but not in the lockfile'] }],
    [
      'another selector',
      { config: ['@acme/a:v2'], locked: { '@acme/a': entry('v1') }, want: ['@acme/a:v2 asks for v2, the lockfile has @acme/a at v1'] },
    ],
    [
      'no longer requested',
      {
        config: ['@acme/a'],
        locked: { '@acme/a': entry(null), '@acme/b': entry(null) },
        want: ['@acme/b is in the lockfile but no longer requested by the config'],
      },
    ],
    [
      'glob with nothing locked',
      { config: ['@globex/*'], locked: {}, want: ['@globex/* is in the config but the lockfile has no prompt of workspace "globex"'] },
    ],
    [
      'glob selector changed',
      {
        config: ['@acme/*:draft'],
        locked: { '@acme/a': entry('latest') },
        want: ['@acme/a is locked at latest, the config asks for draft'],
      },
    ],
    [
      'read otherwise by the config',
      {
        config: ['@acme/*'],
        locked: { '@acme/a': entry('latest'), '@acme/b': read('sdk') },
        placeholders: { '@acme/a': { text: ['end', 'item'] } },
        want: [
          '@acme/a is read by the grammar with "end", "item" kept as text by the config\'s "placeholders", the lockfile read it by the grammar',
          '@acme/b is read by the grammar by the config\'s "placeholders", the lockfile read it as the SDK reads it',
        ],
      },
    ],
    [
      'read alike: a workspace glob of "placeholders", names in any order',
      {
        config: ['@acme/*'],
        locked: { '@acme/a': read({ text: ['end', 'item'] }), '@acme/b': read('sdk') },
        placeholders: { '@acme/*': { text: ['item', 'end', 'item'] }, '@acme/b': 'sdk' },
        want: [],
      },
    ],
  ];
  it.each(cases)('%s', (_name, { config, locked, placeholders, want }) => {
    expect(compareConfigWithLock(requestedEntries(config), lock(locked), placeholders ?? {})).toEqual(want);
  });
});

describe('closeMatches', () => {
  const names = ['@acme/support-reply', '@acme/summarize', '@acme/welcome', '@globex/support-reply'];
  it.each([
    ['@acme/suport-reply', ['@acme/support-reply', '@globex/support-reply']],
    ['@acme/welcom', ['@acme/welcome']],
    ['@zzz/qqqqqqqq', []],
  ])('%s', (given, want) => {
    expect(closeMatches(given, names)).toEqual(want);
  });
});
