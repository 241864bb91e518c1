import type { z } from 'zod';
import { describeIssue } from '../util/describe-issue.js';
import { decodeText, UndecodableText } from './decode-text.js';
import type { AttemptAnswer } from './http-attempt.js';
import { unwrapEnvelope } from './schemas.js';
import { InvalidBody } from './service-transport.js';

/**
 * The JSON of a 2xx answer, decoded as its charset says (src/api/decode-text.ts). A body that is
 * not JSON may have been cut short: InvalidBody, retried. Bytes that are not text in their
 * encoding are the same bytes on every attempt: InvalidBody, not retried.
 */
export function readJson(answer: AttemptAnswer): unknown {
  let text: string;
  try {
    text = decodeText(answer);
  } catch (error) {
    if (error instanceof UndecodableText) throw new InvalidBody(error.message, { retry: false });
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch {
    const size = answer.body.length;
    throw new InvalidBody(size === 0 ? 'the body is empty' : `the body is not JSON (${size} bytes, cut short or not the prompt service)`);
  }
}

/**
 * Parses a 2xx answer: JSON, either envelope, then the schema. A well-formed answer that breaks
 * the schema fails at once with the field named: asking again gets the same answer.
 */
export function readJsonBody<T>(answer: AttemptAnswer, schema: z.ZodType<T>, marker: string): T {
  const result = schema.safeParse(unwrapEnvelope(readJson(answer), marker));
  if (!result.success) throw new InvalidBody(describeIssue(result.error), { retry: false });
  return result.data;
}
