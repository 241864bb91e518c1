import { describe, expect, it } from 'vitest';
import { camelCase, exportNameProblem, fixIdentifier, functionNames, recordExportNames } from '../../src/codegen/naming.js';
import { LockfileError } from '../../src/errors.js';

describe('camelCase', () => {
  const cases: Array<[string, { given: string; want: string }]> = [
    ['one word', { given: 'welcome', want: 'welcome' }],
    ['hyphens', { given: 'support-reply', want: 'supportReply' }],
    ['several hyphens', { given: 'a-b-c', want: 'aBC' }],
    ['double and edge hyphens', { given: '-support--reply-', want: 'supportReply' }],
    ['digits after a hyphen', { given: 'step-2-check', want: 'step2Check' }],
    ['only hyphens', { given: '---', want: '' }],
  ];
  it.each(cases)('%s', (_, { given, want }) => expect(camelCase(given)).toBe(want));
});

describe('fixIdentifier', () => {
  const cases: Array<[string, { given: string; want: string }]> = [
    ['valid name kept', { given: 'supportReply', want: 'supportReply' }],
    ['leading digit', { given: '2faCheck', want: '_2faCheck' }],
    ['reserved word', { given: 'delete', want: 'deletePrompt' }],
    ['strict-mode reserved', { given: 'package', want: 'packagePrompt' }],
    ['module-only reserved', { given: 'await', want: 'awaitPrompt' }],
    ['not declarable in strict code', { given: 'arguments', want: 'argumentsPrompt' }],
    ['TypeScript module-scope name', { given: 'require', want: 'requirePrompt' }],
    ['own export', { given: 'prompts', want: 'promptsPrompt' }],
    ['empty', { given: '', want: 'prompt' }],
  ];
  it.each(cases)('%s', (_, { given, want }) => expect(fixIdentifier(given).name).toBe(want));
});

describe('functionNames', () => {
  const cases: Array<[string, { given: string[]; want: Record<string, string> }]> = [
    ['camelCase slug', { given: ['@acme/support-reply'], want: { '@acme/support-reply': 'supportReply' } }],
    [
      'workspace prefix only when slugs collide',
      {
        given: ['@globex/support-reply', '@acme/support-reply', '@acme/welcome'],
        want: {
          '@acme/support-reply': 'acmeSupportReply',
          '@globex/support-reply': 'globexSupportReply',
          '@acme/welcome': 'welcome',
        },
      },
    ],
    ['hyphenated workspace prefix', { given: ['@my-co/x', '@b/x'], want: { '@my-co/x': 'myCoX', '@b/x': 'bX' } }],
    ['prefix then digit fix', { given: ['@3m/x', '@acme/x'], want: { '@3m/x': '_3mX', '@acme/x': 'acmeX' } }],
    [
      'a natural name wins over a fixed one',
      {
        given: ['@a/delete', '@a/delete-prompt'],
        want: { '@a/delete-prompt': 'deletePrompt', '@a/delete': 'deletePrompt2' },
      },
    ],
    ['same camelCase within one workspace gets a number', { given: ['@a/x-y', '@a/x--y'], want: { '@a/x--y': 'xY', '@a/x-y': 'xY2' } }],
    [
      'prefixed name meets a natural one',
      {
        given: ['@acme/x', '@globex/x', '@foo/acme-x'],
        want: { '@foo/acme-x': 'acmeX', '@acme/x': 'acmeX2', '@globex/x': 'globexX' },
      },
    ],
  ];
  it.each(cases)('%s', (_, { given, want }) => {
    expect(Object.fromEntries(functionNames(given))).toEqual(want);
    // Input order does not matter.
    expect(Object.fromEntries(functionNames([...given].reverse()))).toEqual(want);
  });

  it('rejects something that is not a package name', () => {
    expect(() => functionNames(['acme/x'])).toThrow('not a package name: acme/x');
  });
});

describe('recorded export names', () => {
  const recorded = (entries: Record<string, string>) => new Map(Object.entries(entries));

  it('keeps recorded names and prefixes the newcomer that collides', () => {
    expect(Object.fromEntries(functionNames(['@acme/welcome', '@globex/welcome'], recorded({ '@acme/welcome': 'welcome' })))).toEqual({
      '@acme/welcome': 'welcome',
      '@globex/welcome': 'globexWelcome',
    });
  });

  it('a newcomer whose name a recorded one of another slug took is prefixed, then numbered', () => {
    expect(Object.fromEntries(functionNames(['@a/x', '@b/x-y', '@b/y'], recorded({ '@a/x': 'y', '@b/x-y': 'bY' })))).toEqual({
      '@a/x': 'y',
      '@b/x-y': 'bY',
      '@b/y': 'bY2',
    });
  });

  it('colliding or invalid recorded names are a LockfileError', () => {
    expect(() => functionNames(['@a/x', '@b/x'], recorded({ '@a/x': 'x', '@b/x': 'x' }))).toThrow(
      '@b/x and @a/x have the same export name "x".',
    );
    expect(() => functionNames(['@a/x'], recorded({ '@a/x': 'new' }))).toThrow('The export name "new" of @a/x is a reserved word.');
    expect(exportNameProblem('ok_1')).toBeUndefined();
    expect(exportNameProblem('1x')).toMatch(/identifier/);
    expect(exportNameProblem('a.b')).toMatch(/identifier/);
  });

  it.each([
    ['then', /thenable/],
    ['$readVariables', /\$ is kept for the runtime/],
    ['$freeze', /\$ is kept for the runtime/],
    ['a$b', /\$ is kept for the runtime/],
    ['Object', /global the runtime of the module uses/],
    ['JSON', /global the runtime of the module uses/],
    ['String', /global the runtime of the module uses/],
    ['TypeError', /global the runtime of the module uses/],
  ])('a recorded export name %s is refused', (name, problem) => {
    expect(exportNameProblem(name)).toMatch(problem);
    expect(() => functionNames(['@a/x'], recorded({ '@a/x': name }))).toThrow(LockfileError);
  });

  it('a prompt named then gets thenPrompt', () => {
    expect(functionNames(['@acme/then', '@acme/then-else'])).toEqual(
      new Map([
        ['@acme/then', 'thenPrompt'],
        ['@acme/then-else', 'thenElse'],
      ]),
    );
  });

  it('recordExportNames keeps the names the previous lockfile gave (recorded or not) and reports renames only when asked', () => {
    const previous = { '@acme/welcome': {}, '@acme/extra': { exportName: 'extra' } };
    const next = { '@acme/welcome': {}, '@globex/welcome': {} };
    expect(recordExportNames(previous, next)).toEqual({
      prompts: { '@acme/welcome': { exportName: 'welcome' }, '@globex/welcome': { exportName: 'globexWelcome' } },
      renamed: [],
    });
    expect(recordExportNames(previous, next, true)).toEqual({
      prompts: { '@acme/welcome': { exportName: 'acmeWelcome' }, '@globex/welcome': { exportName: 'globexWelcome' } },
      renamed: [{ name: '@acme/welcome', from: 'welcome', to: 'acmeWelcome' }],
    });
  });
});
