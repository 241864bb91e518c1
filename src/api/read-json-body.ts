import type { z } from 'zod';
import { describeIssue } from '../util/describe-issue.js';
import type { AttemptAnswer } from './http-attempt.js';
import { unwrapEnvelope } from './schemas.js';
import { InvalidBody } from './service-transport.js';

/**
 * Parses a 2xx answer: JSON, either envelope, then the schema. A body that is cut short or
 * wrong throws InvalidBody, which the transport retries before reporting the problem.
 */
export function readJsonBody<T>(answer: AttemptAnswer, schema: z.ZodType<T>, marker: string): T {
  let json: unknown;
  try {
    json = JSON.parse(answer.body.toString('utf8'));
  } catch {
    const size = answer.body.length;
    throw new InvalidBody(size === 0 ? 'the body is empty' : `the body is not JSON (${size} bytes, cut short or not the prompt service)`);
  }
  const result = schema.safeParse(unwrapEnvelope(json, marker));
  if (!result.success) throw new InvalidBody(describeIssue(result.error));
  return result.data;
}
