import type { z } from 'zod';
import { formatPath } from './format-path.js';

/**
 * The first problem of a failed validation as `prompts[3].packageName: expected string`: the
 * field that is wrong and what it should be, without zod's prose.
 */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'unknown problem';
  const where = formatPath(issue.path);
  const prefix = where ? `${where}: ` : '';
  switch (issue.code) {
    case 'invalid_type':
      return `${prefix}expected ${issue.expected}`;
    case 'invalid_value':
      return `${prefix}expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      return `${prefix}expected a non-empty value`;
    case 'invalid_format':
      return `${prefix}expected a valid ${issue.format}`;
    default:
      return `${prefix}${issue.message}`;
  }
}
