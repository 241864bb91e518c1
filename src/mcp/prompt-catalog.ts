/**
 * The locked prompts as an MCP server lists and renders them (docs/mcp.md). Each prompt is listed
 * under its package name, its variables as arguments (all required, as the generated function
 * takes them); a get renders the texts the generated function returns for the same values: the
 * variables are read as codegen reads them and each text rendered by the template module, which
 * fills a variable's placeholders and leaves any other `{{…}}` as written (docs/architecture.md,
 * "Render parity"). MCP arguments are strings: a typed variable's value is read from its text
 * (`3` for a number, `true` for a boolean, JSON for an array or an object) and refused when it
 * is not one. Pure: prompts in, answers out; no SDK, no I/O.
 */
import type { LockedPrompt } from '../store/read-store.js';
import { listVariables, parseTemplate, renderTemplate, type Segment, type Variable, type VariableType } from '../template/index.js';
import { promptTexts } from '../types.js';

/** An argument a client got wrong (or a prompt it named that is not there): an MCP "invalid params" error. */
export class PromptArgumentError extends Error {
  override name = 'PromptArgumentError';
}

/** A prompt as `prompts/list` gives it. */
export type ListedPrompt = {
  name: string;
  title: string;
  description: string;
  arguments: Array<{ name: string; description?: string; required: true }>;
};

/** What `prompts/get` answers: the system prompt (when there is one), then the content, as user messages. */
export type RenderedMessages = {
  description: string;
  messages: Array<{ role: 'user'; content: { type: 'text'; text: string } }>;
};

interface CatalogEntry {
  listed: ListedPrompt;
  variables: Variable[];
  systemPrompt: Segment[] | null;
  content: Segment[];
}

/** How each type's value is written as an argument, in its description. */
const WRITTEN_AS: Readonly<Record<VariableType, string>> = {
  string: 'text',
  number: 'a number',
  boolean: 'true or false',
  array: 'a JSON array',
  object: 'a JSON object',
};

/** The value of `name` read from its argument text as the variable's type; why not, when it is none. */
function readArgument(type: VariableType, text: string): { value: unknown } | { problem: string } {
  if (type === 'string') return { value: text };
  if (type === 'number') {
    const value = Number(text);
    return text.trim() !== '' && Number.isFinite(value) ? { value } : { problem: 'is not a number' };
  }
  if (type === 'boolean')
    return text === 'true' || text === 'false' ? { value: text === 'true' } : { problem: 'is neither true nor false' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: `is not JSON (${WRITTEN_AS[type]} is expected)` };
  }
  const isArray = Array.isArray(value);
  if (type === 'array' ? isArray : value !== null && typeof value === 'object' && !isArray) return { value };
  return { problem: `is not ${WRITTEN_AS[type]}` };
}

function entryOf({ name, entry, prompt }: LockedPrompt): CatalogEntry {
  // The variables as codegen reads them (src/codegen/prompt-to-function.ts): the same texts, read
  // as the lock entry records (the config's `placeholders` when it was synced).
  const variables = listVariables(promptTexts(prompt), name, entry.placeholders);
  const about = prompt.description || prompt.title;
  return {
    listed: {
      name,
      title: prompt.title,
      description: `${about} (${name} ${entry.version}, reviewed as ${entry.integrity})`,
      arguments: variables.map((variable) => {
        const description = [variable.description, variable.type === 'string' ? undefined : `(${WRITTEN_AS[variable.type]})`].filter(
          Boolean,
        );
        return { name: variable.name, ...(description.length > 0 ? { description: description.join(' ') } : {}), required: true as const };
      }),
    },
    variables,
    systemPrompt: typeof prompt.systemPrompt === 'string' && prompt.systemPrompt !== '' ? parseTemplate(prompt.systemPrompt) : null,
    content: parseTemplate(prompt.content),
  };
}

/** The prompts of one read of the store, listed and rendered. */
export class PromptCatalog {
  private readonly entries = new Map<string, CatalogEntry>();
  /** Prompts left out, with why (texts whose variables cannot be typed: `generate` refuses them too). */
  readonly refused: Array<{ name: string; reason: string }> = [];

  constructor(prompts: readonly LockedPrompt[]) {
    for (const locked of [...prompts].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      try {
        this.entries.set(locked.name, entryOf(locked));
      } catch (error) {
        this.refused.push({ name: locked.name, reason: (error as Error).message });
      }
    }
  }

  list(): ListedPrompt[] {
    return [...this.entries.values()].map((entry) => entry.listed);
  }

  /** What a client sees of the catalog: two reads that list the same are the same to it. */
  fingerprint(): string {
    return JSON.stringify([...this.entries.values()].map((entry) => [entry.listed, entry.systemPrompt, entry.content]));
  }

  /** The prompt `name` rendered with `args`; a `PromptArgumentError` names what is wrong. */
  get(name: string, args: Readonly<Record<string, string>>): RenderedMessages {
    const entry = this.entries.get(name);
    if (!entry) throw new PromptArgumentError(`No prompt ${JSON.stringify(name)}: prompts/list names the locked prompts.`);
    const values: Record<string, unknown> = Object.create(null);
    const problems: string[] = [];
    for (const variable of entry.variables) {
      const text = Object.hasOwn(args, variable.name) ? args[variable.name] : undefined;
      if (typeof text !== 'string') {
        problems.push(`argument "${variable.name}" is missing`);
        continue;
      }
      const read = readArgument(variable.type, text);
      if ('problem' in read)
        problems.push(
          `argument "${variable.name}" ${read.problem}: ${JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text)}`,
        );
      else values[variable.name] = read.value;
    }
    const known = new Set(entry.variables.map((variable) => variable.name));
    for (const extra of Object.keys(args).filter((key) => !known.has(key))) problems.push(`it takes no argument "${extra}"`);
    if (problems.length > 0) {
      const takes = entry.variables.length === 0 ? 'none' : entry.variables.map((v) => `${v.name} (${WRITTEN_AS[v.type]})`).join(', ');
      throw new PromptArgumentError(`${name}: ${problems.join('; ')}. Its arguments: ${takes}.`);
    }
    const message = (segments: Segment[]) => ({
      role: 'user' as const,
      content: { type: 'text' as const, text: renderTemplate(segments, values) },
    });
    const messages = entry.systemPrompt ? [message(entry.systemPrompt), message(entry.content)] : [message(entry.content)];
    return { description: entry.listed.description, messages };
  }
}
