/**
 * One followed prompt: what the generated function is (its variables, its version), what it
 * serves now and why, and the render of a fetched version. The why is text from outside (a
 * service's error message, a store's entry): it is cleaned and capped before it is kept or emitted.
 */
import { serviceText } from '../api/service-errors.js';
import { redact } from '../secrets.js';
import type { LockEntry, Lockfile } from '../store/lockfile-format.js';
import { type PlaceholderReading, renderTemplate, type Segment, type VariableType } from '../template/index.js';
import type { AnyPrompt, LiveEvent, LiveSource } from './types.js';

/** Longest reason kept in `status()` or sent in an event: service text can be megabytes. */
export const MAX_REASON_CHARS = 1000;

/** A fetched version, checked and parsed, ready to render. */
export interface LiveVersion {
  version: string;
  fingerprint: string;
  base: Record<string, unknown>;
  content: Segment[];
  systemPrompt: Segment[] | null;
  critiquePrompt: Segment[] | null;
}

export interface PromptState {
  name: string;
  fn: AnyPrompt;
  selector: string | null;
  follow: boolean;
  /** Variables of the generated function, in its order, with their types. */
  committed: Map<string, VariableType>;
  /** How the lockfile read its placeholders (README, "Placeholders"): a fetched version is read alike. */
  reading: PlaceholderReading | undefined;
  snapshotVersion: string;
  /** The lockfile's integrity of the reviewed text: a live version's provenance names it (docs/traces.md). */
  integrity: string;
  live: LiveVersion | undefined;
  source: LiveSource;
  reason: string;
  /** Fingerprint of the last version found incompatible, so it is reported once. */
  rejected: string | undefined;
  answered: boolean;
  checkedAt: number | undefined;
  nextCheckAt: number;
  inflight: Promise<void> | undefined;
  /** A refused fleet cache entry was reported, and no good one read since. */
  storeRefused: boolean;
  /** Since when another instance's refresher key kept this one from refreshing. */
  waitingSince: number | undefined;
  /**
   * Fetch time of the newest answer this instance has taken, its own or the fleet's: a store entry
   * fetched before it is old news, never taken (a captured entry written back: docs/live.md).
   */
  seenAt: number | undefined;
}

const FLOATING = new Set(['latest', 'draft']);

/** `text` fit to keep and show: no key, no control or bidi characters, at most MAX_REASON_CHARS. */
export function cleanReason(text: string, apiKey: string | undefined): string {
  return serviceText(redact(text, [apiKey]).replace(/\s*[\r\n]+\s*/g, ' '), MAX_REASON_CHARS)!;
}

/** The version a prompt serves now. */
export function served(state: PromptState): string {
  return state.live?.version ?? state.snapshotVersion;
}

/** `reason` without the punctuation it ends with, so `; serving …` can follow it. */
function clause(reason: string): string {
  return reason.replace(/[\s.;:,]+$/, '');
}

/** Sets why a prompt serves what it serves after a failure, and tells the listener. */
export function fallback(state: PromptState, reason: string, emit: (event: LiveEvent) => void, apiKey: string | undefined): void {
  const why = cleanReason(clause(reason), apiKey);
  state.reason = `${why}; serving ${served(state)} (${state.live ? 'last good version' : 'committed snapshot'})`;
  emit({ type: 'fallback', name: state.name, reason: why, version: served(state), source: state.source });
}

/**
 * The variables of a call as the generated function reads them: every name it takes, and only
 * those, so a placeholder kept as text is never filled by a value it does not take.
 */
function checkedValues(state: PromptState, variables: unknown): Record<string, unknown> {
  if (state.committed.size === 0) return {};
  if (variables === null || typeof variables !== 'object') {
    throw new TypeError(`Prompt "${state.name}" takes its variables as an object, got ${variables === null ? 'null' : typeof variables}.`);
  }
  const given = variables as Record<string, unknown>;
  const values: Record<string, unknown> = Object.create(null);
  for (const name of state.committed.keys()) {
    const value = Object.hasOwn(given, name) ? given[name] : undefined;
    if (value === undefined) throw new TypeError(`Prompt "${state.name}" is missing variable "${name}".`);
    values[name] = value;
  }
  return values;
}

/** What a call answers: the fetched version rendered like the service, or the generated function's own render. */
export function render(state: PromptState, args: unknown[]): unknown {
  const live = state.live;
  if (!live) return state.fn(...args);
  const values = checkedValues(state, args[0]);
  const base = live.base;
  return {
    ...base,
    tags: (base.tags as unknown[]).slice(),
    context: (base.context as object[]).map((item) => ({ ...item })),
    metadata: { ...(base.metadata as object) },
    systemPrompt: live.systemPrompt && renderTemplate(live.systemPrompt, values),
    content: renderTemplate(live.content, values),
    critiquePrompt: live.critiquePrompt && renderTemplate(live.critiquePrompt, values),
    provenance: {
      name: state.name,
      version: live.version,
      integrity: state.integrity,
      source: 'live',
      reviewedVersion: state.snapshotVersion,
    },
  };
}

/**
 * The names a generated function reads, in order, and the version it returns: it is called once
 * with a recording stand-in for its variables (it only reads them, and renders text).
 */
function probe(fn: AnyPrompt): { names: string[]; version: unknown } {
  const names: string[] = [];
  const record = (property: string | symbol) => {
    if (typeof property === 'string' && !names.includes(property)) names.push(property);
  };
  // A generated function asks whether each name is the object's own (`hasOwnProperty`, which
  // calls getOwnPropertyDescriptor), then reads it (get): either records it.
  const stand = new Proxy(
    {},
    {
      getOwnPropertyDescriptor(_target, property) {
        record(property);
        return { value: '', writable: true, enumerable: true, configurable: true };
      },
      get: (_target, property) => {
        record(property);
        return '';
      },
      has: () => true,
    },
  );
  const rendered = fn(stand) as { version?: unknown } | undefined;
  return { names, version: rendered?.version };
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}

/** Why a prompt is not followed, or undefined when it is. */
function notFollowedBecause(name: string, entry: LockEntry | undefined, seen: { names: string[]; version: string }, drafts: boolean) {
  const selector = entry?.selector ?? null;
  if (!entry) return `the lockfile has no entry for ${name}; pass the lockfile the module was generated from`;
  if (entry.version !== seen.version) {
    return `the lockfile locks ${entry.version} but the module was generated from ${seen.version}; run \`promptlock generate\``;
  }
  const locked = entry.variables.map((v) => v.name);
  if (!sameNames(locked, seen.names)) return "the lockfile's variables differ from the module's; run `promptlock generate`";
  if (selector !== null && !FLOATING.has(selector)) return `pinned to ${selector}: never followed`;
  if (selector === 'draft' && !drafts) return 'locked at :draft; pass { drafts: true } to follow drafts';
  return undefined;
}

export function setUpPrompt(name: string, fn: AnyPrompt, lockfile: Lockfile, drafts: boolean): PromptState {
  const entry: LockEntry | undefined = lockfile.prompts[name];
  let snapshotVersion = '?';
  let notFollowed: string | undefined;
  try {
    const seen = probe(fn);
    snapshotVersion = typeof seen.version === 'string' ? seen.version : '?';
    notFollowed = notFollowedBecause(name, entry, { names: seen.names, version: snapshotVersion }, drafts);
  } catch (error) {
    notFollowed = `the function did not render as a generated prompt (${(error as Error)?.message ?? String(error)})`;
  }
  return {
    name,
    fn,
    selector: entry?.selector ?? null,
    follow: notFollowed === undefined,
    committed: new Map((entry?.variables ?? []).map((v) => [v.name, v.type])),
    reading: entry?.placeholders,
    snapshotVersion,
    integrity: entry?.integrity ?? '',
    live: undefined,
    source: 'snapshot',
    reason: notFollowed ? `committed snapshot ${snapshotVersion}: ${notFollowed}` : `committed snapshot ${snapshotVersion}: not asked yet`,
    rejected: undefined,
    answered: false,
    checkedAt: undefined,
    nextCheckAt: 0,
    inflight: undefined,
    storeRefused: false,
    waitingSince: undefined,
    seenAt: undefined,
  };
}
