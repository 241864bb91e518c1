/**
 * The placeholder grammar (README, "Placeholders"; docs/service-interface.md): which `{{…}}` of a
 * text is a variable of its function, and which is text that renders as written, dialect by dialect.
 */
import { describe, expect, it } from 'vitest';
import { type PlaceholderReading, readTexts, renderTemplate } from '../../src/template/index.js';

interface Want {
  variables: string[];
  /** The placeholders kept as text, as written. */
  kept: string[];
}

const LONG_COMMENT = `{{!-- ${'a handlebars comment that runs on and on, '.repeat(7)}--}}`;
const LONG_NAME = `{{${'n'.repeat(257)}}}`;

const cases: Array<[string, { given: string; reading?: PlaceholderReading; want: Want }]> = [
  [
    'a name, spaced, hinted, described',
    { given: '{{a}} {{ b }} {{c:number}} {{d // the d}} {{e : bool // e}}', want: { variables: ['a', 'b', 'c', 'd', 'e'], kept: [] } },
  ],
  [
    'hyphens inside a name',
    {
      given: '{{first-name}} {{a-b-c}} {{a--b}} {{-x}} {{x-}}',
      want: { variables: ['first-name', 'a-b-c'], kept: ['{{a--b}}', '{{-x}}', '{{x-}}'] },
    },
  ],
  [
    'letters of any script',
    { given: '{{prénom}} {{名前}} {{имя}} {{नाम}}', want: { variables: ['prénom', '名前', 'имя', 'नाम'], kept: [] } },
  ],
  ['a leading digit', { given: '{{1}} {{2fa}} {{v2}}', want: { variables: ['v2'], kept: ['{{1}}', '{{2fa}}'] } }],
  [
    'handlebars blocks',
    {
      given: '{{#if age >= 18}}adult {{name}}{{else}}minor{{/if}} {{^items}}none{{/items}}',
      want: { variables: ['name'], kept: ['{{#if age >= 18}}', '{{else}}', '{{/if}}', '{{^items}}', '{{/items}}'] },
    },
  ],
  [
    'handlebars each with this and block parameters',
    {
      given: '{{#each items as |item i|}}{{item}} {{i}} {{this}} {{@index}} {{../title}}{{/each}}',
      want: {
        variables: [],
        kept: ['{{#each items as |item i|}}', '{{item}}', '{{i}}', '{{this}}', '{{@index}}', '{{../title}}', '{{/each}}'],
      },
    },
  ],
  [
    'comments and partials',
    {
      given: `{{! a note }} ${LONG_COMMENT} {{> header}} {{~trim~}}`,
      want: { variables: [], kept: ['{{! a note }}', LONG_COMMENT, '{{> header}}', '{{~trim~}}'] },
    },
  ],
  [
    'dotprompt helpers',
    {
      given: '{{role "system"}} {{media url=photoUrl}} {{json schema}} {{section "output"}} {{history}}',
      want: { variables: ['history'], kept: ['{{role "system"}}', '{{media url=photoUrl}}', '{{json schema}}', '{{section "output"}}'] },
    },
  ],
  [
    'jinja loops, sets and filters',
    {
      given:
        "{% for item in messages %}{{ item.role }}: {{ item }}{% endfor %}{% set sep = ', ' %}{{ tags|join(sep) }} {{ sep }} {{ name | upper }} {{ topic }}",
      want: { variables: ['topic'], kept: ['{{ item.role }}', '{{ item }}', '{{ tags|join(sep) }}', '{{ sep }}', '{{ name | upper }}'] },
    },
  ],
  [
    'jinja macro parameters and with',
    {
      given: '{% macro card(title, body=none) %}{{ title }}{{ body }}{% endmacro %}{% with who = user %}{{ who }}{% endwith %}{{ user }}',
      want: { variables: ['user'], kept: ['{{ title }}', '{{ body }}', '{{ who }}'] },
    },
  ],
  [
    'JSX style objects',
    {
      given: "<div style={{ width: 200, height: 200 }} /> <p style={{ display: 'flex' }}>",
      want: { variables: [], kept: ['{{ width: 200, height: 200 }}', "{{ display: 'flex' }}"] },
    },
  ],
  [
    'JSON written with the f-string brace escape',
    {
      given: 'Answer {{"label": "refund", "confidence": 0.9}} or\n{{\n  "label": "other"\n}}',
      want: { variables: [], kept: ['{{"label": "refund", "confidence": 0.9}}', '{{\n  "label": "other"\n}}'] },
    },
  ],
  ['nested JSON braces are no placeholder at all', { given: '{{"a": {"b": 1}}}', want: { variables: [], kept: [] } }],
  [
    'Semantic Kernel variables and function calls',
    {
      given: '{{$input}} {{ $history }} {{time.Now}} {{weather.getForecast $city}}',
      want: { variables: ['$input', '$history'], kept: ['{{time.Now}}', '{{weather.getForecast $city}}'] },
    },
  ],
  [
    'Go templates',
    {
      given: 'Today is {{.CurrentDate}}. {{range .Items}}- {{.Name}}{{end}} {{ if .Admin }}yes{{ else }}no{{ end }}',
      want: {
        variables: [],
        kept: ['{{.CurrentDate}}', '{{range .Items}}', '{{.Name}}', '{{end}}', '{{ if .Admin }}', '{{ else }}', '{{ end }}'],
      },
    },
  ],
  [
    'each block language has its own words',
    {
      given: 'From {{start}} to {{end}} {{#if x}}{{this}}{{/if}}',
      want: { variables: ['start', 'end'], kept: ['{{#if x}}', '{{this}}', '{{/if}}'] },
    },
  ],
  [
    'block words are names in a text without blocks',
    { given: 'From {{start}} to {{end}}; {{this}}', want: { variables: ['start', 'end', 'this'], kept: [] } },
  ],
  [
    'scanner DSL calls',
    { given: '{{to_lower(rand_base(5))}} {{BaseURL}}/admin', want: { variables: ['BaseURL'], kept: ['{{to_lower(rand_base(5))}}'] } },
  ],
  [
    'GitHub expressions',
    {
      given: "token: ${{ secrets.TOKEN }}\nif: ${{ github.event_name == 'push' }}",
      want: { variables: [], kept: ['{{ secrets.TOKEN }}', "{{ github.event_name == 'push' }}"] },
    },
  ],
  ['a dollar before a variable is text', { given: 'Price: ${{price}}', want: { variables: ['price'], kept: [] } }],
  ['dotted names', { given: '{{user.name}} {{a.b.c}}', want: { variables: [], kept: ['{{user.name}}', '{{a.b.c}}'] } }],
  [
    'what follows ":" is no type',
    {
      given: '{{http://example.com}} {{ 12:30 }} {{a:b:c}} {{a:}} {{t:HH:mm}}',
      want: { variables: [], kept: ['{{http://example.com}}', '{{ 12:30 }}', '{{a:b:c}}', '{{a:}}', '{{t:HH:mm}}'] },
    },
  ],
  [
    'a hint written as a type, known or not',
    { given: '{{count:nubmer}} {{tags:string[]}} {{m:Map<string, int>}}', want: { variables: ['count', 'tags', 'm'], kept: [] } },
  ],
  [
    'names no caller can pass',
    { given: `{{__proto__}} ${LONG_NAME} {{constructor}}`, want: { variables: ['constructor'], kept: ['{{__proto__}}', LONG_NAME] } },
  ],
  [
    'a kept placeholder whose name is a variable is filled, as the service fills by name',
    { given: '{{width}} {{ width: 200 }}', want: { variables: ['width'], kept: [] } },
  ],
  [
    'names the config keeps as text',
    { given: 'From {{start}} to {{end}}', reading: { text: ['end'] }, want: { variables: ['start'], kept: ['{{end}}'] } },
  ],
  [
    'every {{…}} read as the SDK reads it',
    {
      given: '{{#each items}}{{user.name}}{{/each}} {{ width: 200 }}',
      reading: 'sdk',
      want: { variables: ['#each items', 'user.name', '/each', 'width'], kept: [] },
    },
  ],
  ['empty braces are no placeholder', { given: '{{}} {{ }} {{:string}}', want: { variables: [], kept: [] } }],
];

describe('which {{…}} is a variable', () => {
  it.each(cases)('%s', (_name, { given, reading, want }) => {
    const read = readTexts(given, undefined, reading);
    expect({ variables: read.variables.map((v) => v.name), kept: read.kept.map((k) => k.text) }).toEqual(want);
  });

  it.each(cases)('%s: renders each kept placeholder as written and fills each variable', (_name, { given, reading }) => {
    const read = readTexts(given, undefined, reading);
    const rendered = renderTemplate(given, Object.fromEntries(read.variables.map((v) => [v.name, `<${v.name}>`])));
    for (const kept of read.kept) expect(rendered).toContain(kept.text);
    for (const variable of read.variables) expect(rendered).toContain(`<${variable.name}>`);
  });
});

describe('what a note says', () => {
  it('says where each kept placeholder is and why', () => {
    const read = readTexts([
      { label: 'content', text: 'one\n{{#if x}}\n{{ width: 2 }} {{user.name}}' },
      { label: 'systemPrompt', text: '{{!c}}' },
    ]);
    expect(read.kept).toEqual([
      { field: 'content', line: 2, text: '{{#if x}}', why: 'a template block' },
      { field: 'content', line: 3, text: '{{ width: 2 }}', why: 'what follows ":" is not a type' },
      { field: 'content', line: 3, text: '{{user.name}}', why: 'a field of an object (a dotted name)' },
      { field: 'systemPrompt', line: 1, text: '{{!c}}', why: 'a template comment' },
    ]);
  });

  it('lists a hint written as a type that is none, and types the variable as if it had no hint', () => {
    const read = readTexts([{ label: 'content', text: 'x\n{{count:nubmer}} {{count:number}} {{n:float}}' }]);
    expect(read.variables).toEqual([
      { name: 'count', type: 'number', hint: 'number' },
      { name: 'n', type: 'string' },
    ]);
    expect(read.unknownHints).toEqual([
      { field: 'content', line: 2, text: '{{count:nubmer}}', hint: 'nubmer' },
      { field: 'content', line: 2, text: '{{n:float}}', hint: 'float' },
    ]);
  });
});
