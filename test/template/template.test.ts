import { describe, expect, it } from 'vitest';
import { PromptlockError, TemplateError } from '../../src/errors.js';
import { listVariables, parseTemplate, renderTemplate, stringifyValue } from '../../src/template/index.js';

describe('listVariables', () => {
  const cases: Array<[string, { given: string; want: ReturnType<typeof listVariables> }]> = [
    ['plain name', { given: 'Hello {{user_name}}!', want: [{ name: 'user_name', type: 'string' }] }],
    ['whitespace inside braces', { given: 'Hi {{  user_name  }}', want: [{ name: 'user_name', type: 'string' }] }],
    ['type hint', { given: '{{user_name:string}}', want: [{ name: 'user_name', type: 'string', hint: 'string' }] }],
    [
      'hint and description',
      {
        given: '{{count:number // Number of unread messages}}',
        want: [{ name: 'count', type: 'number', hint: 'number', description: 'Number of unread messages' }],
      },
    ],
    ['str', { given: '{{a:str}}', want: [{ name: 'a', type: 'string', hint: 'str' }] }],
    ['text', { given: '{{a:text}}', want: [{ name: 'a', type: 'string', hint: 'text' }] }],
    ['int', { given: '{{a:int}}', want: [{ name: 'a', type: 'number', hint: 'int' }] }],
    ['integer', { given: '{{a:integer}}', want: [{ name: 'a', type: 'number', hint: 'integer' }] }],
    ['bool', { given: '{{a:bool}}', want: [{ name: 'a', type: 'boolean', hint: 'bool' }] }],
    ['boolean', { given: '{{a:boolean}}', want: [{ name: 'a', type: 'boolean', hint: 'boolean' }] }],
    ['list', { given: '{{a:list}}', want: [{ name: 'a', type: 'array', hint: 'list' }] }],
    ['array', { given: '{{a:array}}', want: [{ name: 'a', type: 'array', hint: 'array' }] }],
    ['dict', { given: '{{a:dict}}', want: [{ name: 'a', type: 'object', hint: 'dict' }] }],
    ['object', { given: '{{ a : object }}', want: [{ name: 'a', type: 'object', hint: 'object' }] }],
    ['hint case-insensitive', { given: '{{a:Number}}', want: [{ name: 'a', type: 'number', hint: 'Number' }] }],
    ['unknown hint types nothing', { given: '{{a:date}}', want: [{ name: 'a', type: 'string' }] }],
    ['description without hint', { given: '{{a // the a}}', want: [{ name: 'a', type: 'string', description: 'the a' }] }],
    [
      'first-seen order, deduplicated',
      {
        given: '{{b}} {{a}} {{b}} {{c}}',
        want: [
          { name: 'b', type: 'string' },
          { name: 'a', type: 'string' },
          { name: 'c', type: 'string' },
        ],
      },
    ],
    [
      'later hint fills an unhinted name',
      {
        given: '{{n}} then {{n:int // how many}}',
        want: [{ name: 'n', type: 'number', hint: 'int', description: 'how many' }],
      },
    ],
    [
      'same type under two spellings is no conflict',
      { given: '{{n:int}} {{n:number}}', want: [{ name: 'n', type: 'number', hint: 'int' }] },
    ],
    ['empty braces are text', { given: '{{}} {{ }} {{:string}}', want: [] }],
    ['triple braces', { given: '{{{x}}}', want: [{ name: 'x', type: 'string' }] }],
    ['no placeholders', { given: 'Just text with { braces } and }} {{ unclosed', want: [] }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(listVariables(given)).toEqual(want);
  });

  it('reads every name the SDK accepts when read as the SDK reads', () => {
    expect(listVariables('{{first-name}} {{user.name}} {{2fa}}', undefined, 'sdk')).toEqual([
      { name: 'first-name', type: 'string' },
      { name: 'user.name', type: 'string' },
      { name: '2fa', type: 'string' },
    ]);
  });

  it('reads content, systemPrompt and critiquePrompt in that order', () => {
    const vars = listVariables([
      { label: 'content', text: '{{b}}' },
      { label: 'systemPrompt', text: '{{a:int}} {{b}}' },
      { label: 'critiquePrompt', text: null },
    ]);
    expect(vars.map((v) => v.name)).toEqual(['b', 'a']);
  });

  it('reports conflicting hints with both places', () => {
    const run = () =>
      listVariables(
        [
          { label: 'content', text: 'x\n  {{count:number}}' },
          { label: 'systemPrompt', text: '{{count:bool}}' },
        ],
        '@acme/x',
      );
    expect(run).toThrow(TemplateError);
    expect(run).toThrow(
      'Variable "count" has conflicting type hints: "number" at @acme/x content 2:3 and "bool" at @acme/x systemPrompt 1:1.',
    );
    // template/ defines the class (it imports nothing of ours); errors.ts makes it a PromptlockError.
    const error = (() => {
      try {
        run();
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(PromptlockError);
    expect(error).toMatchObject({ name: 'TemplateError', exitCode: 1, hint: expect.stringContaining('Use one type for "count"') });
  });
});

describe('renderTemplate', () => {
  const cases: Array<[string, { given: string; values: Record<string, unknown>; want: string }]> = [
    ['string', { given: 'Hello {{user_name}}!', values: { user_name: 'Ada' }, want: 'Hello Ada!' }],
    ['number', { given: '{{count:number // Unread}} new', values: { count: 3 }, want: '3 new' }],
    ['boolean', { given: '{{ok:bool}}', values: { ok: false }, want: 'false' }],
    ['array as JSON', { given: '{{xs:list}}', values: { xs: [1, 'a'] }, want: '[1,"a"]' }],
    ['object as JSON', { given: '{{o:dict}}', values: { o: { a: 1 } }, want: '{"a":1}' }],
    ['missing stays as written', { given: 'A {{ who : string // x }} B', values: {}, want: 'A {{ who : string // x }} B' }],
    ['every occurrence', { given: '{{a}}{{a}}', values: { a: 'x' }, want: 'xx' }],
    ['values are not re-parsed', { given: '{{a}}{{b}}', values: { a: '{{b}}', b: '$&' }, want: '{{b}}$&' }],
    ['inherited names are not values', { given: '{{constructor}}', values: {}, want: '{{constructor}}' }],
    ['nasty text around', { given: '`${x}` */ \u2028 😀 {{a}}', values: { a: '\\' }, want: '`${x}` */ \u2028 😀 \\' }],
  ];
  it.each(cases)('%s', (_name, { given, values, want }) => {
    expect(renderTemplate(given, values)).toBe(want);
  });

  it('renders from parsed segments the same as from text', () => {
    const text = 'x {{a}} y {{b:int}} z';
    expect(renderTemplate(parseTemplate(text), { a: 1, b: 2 })).toBe(renderTemplate(text, { a: 1, b: 2 }));
  });

  it('stringifies like the SDK', () => {
    expect([stringifyValue('s'), stringifyValue(1.5), stringifyValue(null), stringifyValue([]), stringifyValue({})]).toEqual([
      's',
      '1.5',
      'null',
      '[]',
      '{}',
    ]);
  });
});
