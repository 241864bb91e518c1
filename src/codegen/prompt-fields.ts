/**
 * The fields a generated function returns besides the three texts, in the order of the service
 * interface (docs/service-interface.md), extra fields after them, sorted. The prompt has passed the
 * one validator (`validatePrompt`, src/prompt-grammar.ts) when it was fetched or its snapshot
 * decoded, so every field `RenderedPrompt` declares (templates/runtime.ts) is there and typed.
 */
import { PROMPT_FIELD_ORDER, type Prompt, TEXT_FIELDS, type TextField } from '../types.js';
import { sortKeysDeep } from '../util/sort-keys-deep.js';

const KNOWN: ReadonlySet<string> = new Set(PROMPT_FIELD_ORDER);
const TEXTS: ReadonlySet<string> = new Set<TextField>(TEXT_FIELDS);

/** `[key, value]` for every returned field in order, texts as `undefined` (the caller compiles them). */
export function promptFields(prompt: Prompt): Array<[string, unknown]> {
  // `provenance` is promptlock's own field of every rendered prompt (docs/traces.md): a service
  // field of that name is not carried over it.
  const extra = Object.keys(prompt)
    .filter((key) => !KNOWN.has(key) && key !== 'provenance' && prompt[key] !== undefined)
    .sort();
  const out: Array<[string, unknown]> = [];
  for (const key of [...PROMPT_FIELD_ORDER, ...extra]) {
    if (TEXTS.has(key)) {
      out.push([key, undefined]);
      continue;
    }
    let value = prompt[key];
    if (value === undefined) continue;
    if (key === 'metadata') {
      // Changes on every response; snapshots drop it and so does the module.
      const { generatedAt: _volatile, ...rest } = value as Record<string, unknown>;
      value = rest;
    }
    out.push([key, value !== null && typeof value === 'object' ? sortKeysDeep(value) : value]);
  }
  return out;
}
