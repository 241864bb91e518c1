/**
 * `promptlock/messages`: a rendered prompt as the LLM SDKs take it (docs/messages.md). One
 * function per SDK, each returning the request fields to spread into that SDK's call:
 *
 *     openai.chat.completions.create({ model, ...forOpenAIChat(prompt) })
 *     openai.responses.create({ model, ...forOpenAIResponses(prompt) })
 *     anthropic.messages.create({ model, max_tokens, ...forAnthropic(prompt) })
 *     generateText({ model, ...forVercelAI(prompt) })
 *
 * The types are the SDKs' own shapes written out (the subset these fields use), so the result is
 * assignable to their parameters without promptlock importing or depending on any SDK; the test
 * type-checks an app against the real packages. Imports nothing of Node or of promptlock's CLI:
 * it is meant for apps' bundles, browsers and edge runtimes included.
 *
 * `systemPrompt` is the system (or instructions) field, `content` the user turn. `critiquePrompt`
 * is the second pass the service defines: with `{ critique: answer }` the messages are the prompt,
 * the model's answer as the assistant turn, and `critiquePrompt` as the next user turn.
 */
import { type PromptProvenanceLike, promptAttributes } from './prompt-identity.js';

export type { PromptProvenanceLike } from './prompt-identity.js';
export { PROMPT_ATTRIBUTES, promptAttributes } from './prompt-identity.js';

/** What the helpers read of a rendered prompt (a generated function's `RenderedPrompt`, or a live one). */
export interface MessagesPrompt {
  readonly content: string;
  readonly systemPrompt?: string | null | undefined;
  readonly critiquePrompt?: string | null | undefined;
  readonly packageName?: string | undefined;
  readonly provenance?: PromptProvenanceLike | undefined;
}

export interface MessagesOptions {
  /**
   * The model's answer to the prompt: the messages become those of the critique pass (the prompt,
   * this answer as the assistant turn, then `critiquePrompt` as a user turn). Throws when the
   * prompt has no `critiquePrompt`.
   */
  critique?: string | undefined;
}

/** A message of OpenAI's chat completions (`ChatCompletionMessageParam`, the text-only members). */
export type OpenAIChatMessage =
  | { role: 'system'; content: string }
  | { role: 'developer'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string };

export interface OpenAIChatOptions extends MessagesOptions {
  /** `developer` for the models that take it instead of `system` (OpenAI's reasoning models). @default 'system' */
  systemRole?: 'system' | 'developer' | undefined;
}

/** A message of OpenAI's responses API (`EasyInputMessage`, text content). */
export interface OpenAIResponsesMessage {
  role: 'user' | 'assistant';
  content: string;
  type: 'message';
}

/** A message of Anthropic's messages API (`MessageParam`, text content). */
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** A message of the Vercel AI SDK (`ModelMessage`, the user and assistant members with text content). */
export type VercelAIMessage = { role: 'user'; content: string } | { role: 'assistant'; content: string };

/** The Vercel AI SDK's `experimental_telemetry` (`TelemetrySettings`), the fields that are plain values. */
export interface VercelAITelemetry {
  isEnabled?: boolean;
  recordInputs?: boolean;
  recordOutputs?: boolean;
  functionId?: string;
  metadata?: Record<string, string | number | boolean>;
}

export interface VercelAIOptions extends MessagesOptions {
  /** Settings merged into `experimental_telemetry` (its `metadata` with the prompt's): `{ isEnabled: true }` turns the SDK's spans on. */
  telemetry?: VercelAITelemetry | undefined;
}

/** The turns after the system prompt, as role and text. */
function turns(prompt: MessagesPrompt, options: MessagesOptions | undefined): Array<{ role: 'user' | 'assistant'; content: string }> {
  if (prompt === null || typeof prompt !== 'object' || typeof prompt.content !== 'string') {
    throw new TypeError('promptlock/messages takes a rendered prompt: the object a generated prompt function returns.');
  }
  const out: Array<{ role: 'user' | 'assistant'; content: string }> = [{ role: 'user', content: prompt.content }];
  const answer = options?.critique;
  if (answer === undefined) return out;
  const name = prompt.provenance?.name ?? prompt.packageName ?? 'this prompt';
  if (typeof answer !== 'string') throw new TypeError(`The critique of ${name} takes the model's answer as a string.`);
  if (typeof prompt.critiquePrompt !== 'string' || prompt.critiquePrompt === '') {
    throw new TypeError(`${name} has no critiquePrompt: there is no critique pass to build.`);
  }
  out.push({ role: 'assistant', content: answer }, { role: 'user', content: prompt.critiquePrompt });
  return out;
}

/** The system prompt, when there is one to send (an empty one is none). */
function systemOf(prompt: MessagesPrompt): string | undefined {
  return typeof prompt.systemPrompt === 'string' && prompt.systemPrompt !== '' ? prompt.systemPrompt : undefined;
}

/** `{ messages }` for OpenAI's `chat.completions.create`: the system prompt first (as `system`, or `developer`). */
export function forOpenAIChat(prompt: MessagesPrompt, options?: OpenAIChatOptions): { messages: OpenAIChatMessage[] } {
  const messages: OpenAIChatMessage[] = turns(prompt, options);
  const system = systemOf(prompt);
  if (system !== undefined) messages.unshift({ role: options?.systemRole === 'developer' ? 'developer' : 'system', content: system });
  return { messages };
}

/** `{ instructions, input }` for OpenAI's `responses.create`: the system prompt as `instructions`. */
export function forOpenAIResponses(
  prompt: MessagesPrompt,
  options?: MessagesOptions,
): { instructions?: string; input: OpenAIResponsesMessage[] } {
  const input = turns(prompt, options).map(({ role, content }): OpenAIResponsesMessage => ({ role, content, type: 'message' }));
  const system = systemOf(prompt);
  return system === undefined ? { input } : { instructions: system, input };
}

/** `{ system, messages }` for Anthropic's `messages.create`. */
export function forAnthropic(prompt: MessagesPrompt, options?: MessagesOptions): { system?: string; messages: AnthropicMessage[] } {
  const messages: AnthropicMessage[] = turns(prompt, options);
  const system = systemOf(prompt);
  return system === undefined ? { messages } : { system, messages };
}

/**
 * `{ system, messages, experimental_telemetry }` for the Vercel AI SDK's `generateText`,
 * `streamText` and the like: the telemetry metadata carries the prompt's reviewed identity (the
 * attributes of docs/traces.md), which the SDK puts on its spans as `ai.telemetry.metadata.*`.
 */
export function forVercelAI(
  prompt: MessagesPrompt,
  options?: VercelAIOptions,
): { system?: string; messages: VercelAIMessage[]; experimental_telemetry: VercelAITelemetry } {
  const messages: VercelAIMessage[] = turns(prompt, options);
  const telemetry = options?.telemetry;
  const experimental_telemetry: VercelAITelemetry = { ...telemetry, metadata: { ...telemetry?.metadata, ...promptAttributes(prompt) } };
  const system = systemOf(prompt);
  return system === undefined ? { messages, experimental_telemetry } : { system, messages, experimental_telemetry };
}
