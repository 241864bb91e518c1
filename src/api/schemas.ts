/**
 * Schemas of every answer the client accepts. Lenient where the interface (docs/service-interface.md) and the real service
 * disagree (envelopes, error shapes, nullable fields, list names), strict on what later stages
 * rely on. Unknown fields of prompts and list items are kept: snapshots store the prompt as the
 * service returned it.
 */
import * as z from 'zod';
import { describeProblem, validatePrompt } from '../prompt-grammar.js';
import type { Prompt } from '../types.js';

/**
 * The shape of a prompt answer, checked by the transport so a body that is not a prompt is retried
 * like a 5xx: the one validator's shape (`validatePrompt`, src/prompt-grammar.ts), which also
 * refuses a `"__proto__"` key at any depth. Its patterns, the limits and the key check follow in
 * `fetchPrompt`, which knows the config.
 */
export const promptSchema = z.unknown().transform((value, ctx): Prompt => {
  const check = validatePrompt(value, { shapeOnly: true });
  if (check.ok) return check.prompt;
  ctx.addIssue({ code: 'custom', message: describeProblem(check.problem) });
  return z.NEVER;
});

/** `packageName` may be `@ws/pkg`, `@ws/pkg:v1` or a bare slug: all are strings here. */
const promptSummarySchema = z.looseObject({
  id: z.string(),
  title: z.string(),
  packageName: z.string().min(1),
});

export const listPageSchema = z.object({
  prompts: z.array(promptSummarySchema),
  cursor: z.string().nullish(),
  hasMore: z.boolean(),
});

export const healthSchema = z.looseObject({ status: z.string(), timestamp: z.string() });

export const contextDownloadSchema = z.looseObject({ url: z.string().url(), expiresIn: z.number() });

/**
 * Both error shapes: `{ error: "code", message }` and `{ error: { code, message, details,
 * retry_after } }`, bare or inside `data`.
 */
export interface ErrorBody {
  code: string | undefined;
  message: string | undefined;
  retryAfterSeconds: number | undefined;
}

export function readErrorBody(json: unknown): ErrorBody {
  const body = unwrapEnvelope(json, 'error');
  if (!isRecord(body)) return { code: undefined, message: undefined, retryAfterSeconds: undefined };
  const error = body.error;
  const nested = isRecord(error) ? error : undefined;
  // A flat `error` string is a code (`not_found`) or, from some servers, the message itself.
  const flat = typeof error === 'string' ? error.trim() : undefined;
  const flatIsCode = flat !== undefined && /^[a-z][a-z0-9_]*$/.test(flat);
  const code = flatIsCode ? flat : stringOr(nested?.code);
  const message = stringOr(nested?.message) || stringOr(body.message) || (flatIsCode ? undefined : flat);
  const retryAfter = numberOr(nested?.retry_after) ?? numberOr(body.retry_after);
  return { code: code || undefined, message: message || undefined, retryAfterSeconds: retryAfter };
}

/**
 * `{ data: payload }` → payload; a bare payload is returned as is. `marker` is a field only the
 * bare payload has, so a payload that happens to carry a `data` field is not unwrapped.
 */
export function unwrapEnvelope(json: unknown, marker: string): unknown {
  if (isRecord(json) && !(marker in json) && isRecord(json.data)) return json.data;
  return json;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
