/**
 * The MCP catalog reads each argument text as its variable's type, or names what is wrong, and reads
 * a prompt's placeholders as its lock entry records, as the generated function does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateModule } from '../../src/codegen/index.js';
import { PromptArgumentError, PromptCatalog } from '../../src/mcp/prompt-catalog.js';
import { codegenPrompt, importModule, tempDir } from '../codegen/helpers.js';

const catalog = new PromptCatalog([
  codegenPrompt('@acme/typed', {
    content: 'n={{n:number}} b={{b:boolean}} a={{a:array}} o={{o:object}} s={{s}}',
    systemPrompt: '',
  }),
]);
const valid = { n: '1', b: 'true', a: '[]', o: '{}', s: 'x' };
const render = (args: Record<string, string>) => catalog.get('@acme/typed', { ...valid, ...args }).messages.map((m) => m.content.text);

describe('an argument read as its type', () => {
  it.each([
    ['a number in any form JavaScript reads', { n: ' 1e3 ' }, 'n=1000 b=true a=[] o={} s=x'],
    [
      'JSON re-written compactly, as the generated function writes a value',
      { a: '[ 1, "two" ]', o: '{ "k" : null }' },
      'n=1 b=true a=[1,"two"] o={"k":null} s=x',
    ],
    ['text kept exactly, placeholders and all', { s: '{{n}} ${x} ' }, 'n=1 b=true a=[] o={} s={{n}} ${x} '],
  ])('%s', (_, args, text) => {
    // An empty system prompt is no message.
    expect(render(args)).toEqual([text]);
  });

  it.each([
    [{ n: '' }, 'argument "n" is not a number: ""'],
    [{ n: 'Infinity' }, 'argument "n" is not a number: "Infinity"'],
    [{ b: 'True' }, 'argument "b" is neither true nor false: "True"'],
    [{ a: '{}' }, 'argument "a" is not a JSON array: "{}"'],
    [{ o: 'null' }, 'argument "o" is not a JSON object: "null"'],
    [{ o: '[1]' }, 'argument "o" is not a JSON object: "[1]"'],
    [{ a: 'a, b' }, 'argument "a" is not JSON (a JSON array is expected): "a, b"'],
  ])('refuses %o', (args, problem) => {
    expect(() => render(args)).toThrow(PromptArgumentError);
    expect(() => render(args)).toThrow(
      `@acme/typed: ${problem}. Its arguments: n (a number), b (true or false), a (a JSON array), o (a JSON object), s (text).`,
    );
  });
});

describe('a prompt read as the lock entry records', () => {
  // Texts full of `{{…}}` that are not variables (docs/service-interface.md), read by the grammar,
  // with names kept as text by the config, and as the SDK reads them.
  const texts = {
    content: 'Hi {{name}}! {{#if vip}}VIP{{/if}} {{ user.name }} {{title}} {"a": {{count:number}}}',
    systemPrompt: 'You are {{ persona }}.',
  };
  const prompts = [
    codegenPrompt('@acme/grammar', texts),
    codegenPrompt('@acme/kept', texts, { text: ['title'] }),
    codegenPrompt('@acme/sdk', { content: 'Hi {{name}} {{ user.name }}' }, 'sdk'),
  ];
  let generated: Record<string, (v?: object) => { content: string; systemPrompt: string | null }>;
  let dir: { dir: string; remove: () => Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('mcp-reading');
    generated = (await importModule<{ prompts: typeof generated }>(generateModule(prompts), dir.dir)).prompts;
  });
  afterAll(() => dir.remove());

  it.each(prompts.map((p) => [p.name, p] as const))(
    '%s takes the arguments and renders the texts of its generated function',
    (name, item) => {
      const catalog = new PromptCatalog([item]);
      const values = Object.fromEntries(item.entry.variables.map((v) => [v.name, v.type === 'number' ? 7 : `<${v.name}>`]));
      expect(catalog.list()[0]!.arguments.map((a) => a.name)).toEqual(item.entry.variables.map((v) => v.name));
      const args = Object.fromEntries(Object.entries(values).map(([key, value]) => [key, String(value)]));
      const rendered = generated[name]!(values);
      expect(catalog.get(name, args).messages.map((m) => m.content.text)).toEqual(
        [rendered.systemPrompt, rendered.content].filter((text) => typeof text === 'string' && text !== ''),
      );
    },
  );
});
