/** The MCP catalog reads each argument text as its variable's type, or names what is wrong. */
import { describe, expect, it } from 'vitest';
import { PromptArgumentError, PromptCatalog } from '../../src/mcp/prompt-catalog.js';
import { codegenPrompt } from '../codegen/helpers.js';

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
