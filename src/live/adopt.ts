/**
 * Taking a version from the service or the fleet store (docs/live.md): what either answers is
 * hostile input, checked by the same grammar, limits, name rule and echoed-key check as sync, then
 * by the compatibility rule, before it replaces what a prompt serves.
 */
import { recordedName, versionNumber } from '../package-name.js';
import { describeProblem, validatePrompt } from '../prompt-grammar.js';
import { parseTemplate } from '../template/index.js';
import type { Prompt } from '../types.js';
import { incompatibility } from './compatibility.js';
import { cleanReason, fallback, type LiveVersion, type PromptState, served } from './prompt-state.js';
import type { LiveEvent, LiveSource } from './types.js';

export interface AdoptContext {
  apiKey: string | undefined;
  emit: (event: LiveEvent) => void;
}

const from = (source: LiveSource) => (source === 'cache' ? 'store' : 'service');

/** The answer as a valid prompt of this package named as sync records it, or why it is refused. */
function checked(state: PromptState, raw: unknown, source: LiveSource, apiKey: string | undefined): Prompt | string {
  // The one validator of sync (src/prompt-grammar.ts): a live version is hostile input too, and
  // what is adopted here is shared with the whole fleet.
  const check = validatePrompt(raw, { apiKey });
  if (!check.ok) return `the ${from(source)} answered a refused prompt (${describeProblem(check.problem)})`;
  const prompt = check.prompt;
  // Named as sync records it (src/package-name.ts): the name asked for, with the answer's version.
  const named = recordedName(state.name, prompt);
  if (!named.ok) return `the ${from(source)} answer is refused: ${named.problem}`;
  // `v0` is the draft: served only to a prompt locked at :draft (and followed with { drafts: true }).
  if (prompt.version === 'v0' && state.selector !== 'draft') {
    return `the ${from(source)} answered the draft v0 for ${state.name}, which is locked at ${state.selector ?? 'latest'}, not :draft`;
  }
  return { ...prompt, packageName: named.name };
}

function liveVersion(prompt: Prompt, fingerprint: string): LiveVersion {
  const { generatedAt: _volatile, ...metadata } = prompt.metadata;
  return {
    version: prompt.version,
    fingerprint,
    base: { ...prompt, metadata },
    content: parseTemplate(prompt.content),
    systemPrompt: typeof prompt.systemPrompt === 'string' ? parseTemplate(prompt.systemPrompt) : null,
    critiquePrompt: typeof prompt.critiquePrompt === 'string' ? parseTemplate(prompt.critiquePrompt) : null,
  };
}

/**
 * Takes a version from the service or the store if it is compatible. False when it is not a
 * valid prompt of this package: what the store holds is as untrusted as the network.
 */
export function adopt(state: PromptState, raw: unknown, source: LiveSource, context: AdoptContext): boolean {
  const prompt = checked(state, raw, source, context.apiKey);
  if (typeof prompt === 'string') {
    fallback(state, prompt, context.emit, context.apiKey);
    return false;
  }
  const fingerprint = JSON.stringify([prompt.version, prompt.content, prompt.systemPrompt ?? null, prompt.critiquePrompt ?? null]);
  if (state.live?.fingerprint === fingerprint) {
    if (source === 'live') state.source = 'live';
    state.reason = `${prompt.version} from the service is current`;
    return true;
  }
  if (state.rejected === fingerprint) return true;
  const why = incompatibility(prompt, state.committed, state.name, state.reading);
  if (why) {
    const reason = cleanReason(why, context.apiKey);
    state.rejected = fingerprint;
    state.reason = `${prompt.version} on the service is not compatible with the generated function: ${reason}; serving ${served(state)}`;
    context.emit({ type: 'incompatible', name: state.name, version: prompt.version, reason, serving: served(state) });
    return true;
  }
  const was = served(state);
  const previous = state.live;
  state.live = liveVersion(prompt, fingerprint);
  state.source = source;
  state.rejected = undefined;
  state.reason = `${prompt.version} from the ${source === 'cache' ? 'store (fetched by this fleet)' : 'service'}`;
  const changed = previous !== undefined || was !== prompt.version || state.selector === 'draft';
  if (changed) context.emit({ type: 'update', name: state.name, from: was, to: prompt.version, source });
  const [before, after] = [versionNumber(was), versionNumber(prompt.version)];
  if (before !== undefined && after !== undefined && after < before) {
    state.reason += ` (a step back from ${was})`;
    context.emit({ type: 'step-back', name: state.name, from: was, to: prompt.version, source });
  }
  return true;
}
