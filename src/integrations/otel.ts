/**
 * `promptlock/otel`: a rendered prompt's reviewed identity on an OpenTelemetry span (docs/traces.md):
 * `gen_ai.prompt.name`, `gen_ai.prompt.version`, `promptlock.prompt.integrity` (the lockfile's
 * integrity of the reviewed text, which `promptlock which` turns back into its commit and pull
 * request), `promptlock.prompt.source`, and for a live prompt serving another version
 * `promptlock.prompt.reviewed_version`.
 *
 * `@opentelemetry/api` is an optional peer dependency, loaded on the first call that needs the
 * active span, through Node's `require` (`process.getBuiltinModule`, so no bundler sees an import
 * of it or of `node:module`). Without it installed, or outside Node, `recordPrompt` records nothing
 * and throws nothing: the app runs as before. A span passed in needs no API at all. The API keeps
 * its tracer provider and context in one global registry, so the copy loaded here sees the spans
 * the app's own copy started.
 */
import { type ProvenancedPrompt, promptAttributes } from './prompt-identity.js';

export type { PromptProvenanceLike, ProvenancedPrompt } from './prompt-identity.js';
export { PROMPT_ATTRIBUTES, promptAttributes } from './prompt-identity.js';

/** The part of an OpenTelemetry `Span` this module uses. */
export interface SpanLike {
  setAttributes(attributes: Record<string, string>): unknown;
}

/** The part of `@opentelemetry/api` this module uses. */
interface OtelApi {
  trace: { getActiveSpan(): SpanLike | undefined };
}

/** undefined: not looked for yet; null: not installed (or not in Node). */
let api: OtelApi | null | undefined;

function otelApi(): OtelApi | null {
  if (api !== undefined) return api;
  api = null;
  try {
    const node = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const module = node?.getBuiltinModule?.('node:module') as { createRequire(from: string): (id: string) => unknown } | undefined;
    const loaded = module?.createRequire(import.meta.url)('@opentelemetry/api') as OtelApi | undefined;
    if (typeof loaded?.trace?.getActiveSpan === 'function') api = loaded;
  } catch {
    // Not installed: tracing is the app's choice, and without it there is nothing to record on.
  }
  return api;
}

/**
 * Puts the prompt's identity on `span`, or on the active span when none is given. Returns the span
 * it recorded on, or undefined when there was none (no active span, `@opentelemetry/api` not
 * installed) or the prompt has no provenance. Never throws because of tracing.
 */
export function recordPrompt(prompt: ProvenancedPrompt, span?: SpanLike): SpanLike | undefined {
  const attributes = promptAttributes(prompt);
  if (Object.keys(attributes).length === 0) return undefined;
  const target = span ?? otelApi()?.trace.getActiveSpan();
  if (target === undefined || typeof target.setAttributes !== 'function') return undefined;
  target.setAttributes(attributes);
  return target;
}
