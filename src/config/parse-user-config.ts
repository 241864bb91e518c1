import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { maskKeysIn } from '../secrets.js';
import { describeValue } from '../util/describe-value.js';
import { editDistance } from '../util/edit-distance.js';
import { formatPath } from '../util/format-path.js';
import { configSchema, OPTION_ALLOWED, OPTION_NAMES, type OptionName, type ParsedConfig } from './config-schema.js';

/**
 * Validates what a config file exported and applies the defaults. Every problem is reported,
 * one per line, each naming the option path, what is allowed and what was given; `where` names
 * the file (`prompts.config.ts`, `package.json ("promptlock" key)`).
 */
export function parseUserConfig(raw: unknown, where: string): ParsedConfig {
  if (raw === null || raw === undefined) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(`${where} must export a config object, got ${describeValue(raw, maskKeysIn)}.`, {
      hint: 'Write `export default defineConfig({ … })` (or a JSON object).',
    });
  }
  // The key editors read to find the JSON Schema (`init --format json` writes it): not an option.
  if (typeof (raw as { $schema?: unknown }).$schema === 'string') {
    const { $schema: _schema, ...options } = raw as Record<string, unknown>;
    raw = options;
  }
  const result = configSchema.safeParse(raw);
  if (result.success) return result.data;
  const messages = result.error.issues.flatMap((issue) => issueMessages(issue, raw as Record<string, unknown>, where));
  throw new ConfigError(messages.join('\n'), {
    hint: `Options are: ${OPTION_NAMES.join(', ')}. See the JSDoc of defineConfig for each one.`,
  });
}

function issueMessages(issue: z.core.$ZodIssue, raw: Record<string, unknown>, where: string): string[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const suggestion = didYouMean(key, OPTION_NAMES);
      return `Unknown option "${key}" in ${where}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}.`;
    });
  }
  const option = String(issue.path[0]) as OptionName;
  const optionPath = formatPath(issue.path);
  if (issue.code === 'custom' && issue.params?.entry) {
    return [`Invalid value for option "${optionPath}" in ${where}: ${issue.message}.`];
  }
  const value = issue.path.reduce<unknown>(
    (at, key) => (at !== null && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key] : undefined),
    raw,
  );
  // The base URL check explains itself (e.g. why plain http:// is refused); others need no more.
  const reason = issue.code === 'custom' ? ` (${issue.message})` : '';
  // A key of `placeholders` is wrong itself: it is what is shown.
  const shown = issue.code === 'invalid_key' ? String(issue.path[issue.path.length - 1]) : value;
  return [
    `Invalid value for option "${optionPath}" in ${where}: expected ${allowedAt(option, issue)}, got ${describeValue(shown, maskKeysIn)}${reason}.`,
  ];
}

/** What is allowed where an issue is: inside `limits` and `placeholders`, what one entry takes. */
function allowedAt(option: OptionName, issue: z.core.$ZodIssue): string {
  if (issue.path.length === 1) return OPTION_ALLOWED[option];
  if (option === 'limits') return 'a positive integer';
  if (option === 'placeholders') {
    return issue.code === 'invalid_key'
      ? 'a package name ("@workspace/package") or a workspace glob ("@workspace/*")'
      : '"sdk", or { text: [placeholder names] } with at least one name';
  }
  return OPTION_ALLOWED[option];
}

/** The closest of `candidates` to a mistyped option name, if one is close enough to suggest. */
function didYouMean(name: string, candidates: readonly string[]): string | undefined {
  const normal = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = normal(name) === normal(candidate) ? 0 : editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (!best || distance < best.distance) best = { candidate, distance };
  }
  // A third of the name's length keeps "timeout"→"timeouts" and drops unrelated short names.
  const limit = Math.max(1, Math.floor(name.length / 3));
  return best && best.distance <= limit ? best.candidate : undefined;
}
