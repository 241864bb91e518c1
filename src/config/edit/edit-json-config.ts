/**
 * JSON configs (`prompts.config.json`, or the `"promptlock"` key of package.json) are edited by
 * value: JSON has no comments to keep, and the file's indentation and final newline are kept.
 */
import { ConfigError } from '../../errors.js';
import { jsonErrorDetail } from '../../util/json-location.js';
import type { SourceEdit } from './edit-config-source.js';
import { detectJsonStyle, stringifyJson } from './json-style.js';
import { planAdd, planRemove } from './plan-prompt-edit.js';

interface JsonConfig {
  root: Record<string, unknown>;
  config: Record<string, unknown>;
  prompts: unknown[] | undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJsonConfig(text: string, key: string | undefined, where: string): JsonConfig {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${where} is not valid JSON${jsonErrorDetail(text, error)}.`, {
      hint: 'Fix the file, then run the command again.',
      cause: error,
    });
  }
  const config = isObject(root) && key !== undefined ? root[key] : root;
  const label = key === undefined ? where : `the "${key}" key of ${where}`;
  if (!isObject(root) || !isObject(config)) {
    throw new ConfigError(`${label} is not a JSON object.`, { hint: 'Edit its prompts list by hand.' });
  }
  const prompts = config.prompts;
  if (prompts !== undefined && !Array.isArray(prompts)) {
    throw new ConfigError(`The prompts option in ${label} is not a list.`, {
      hint: 'Make it a list of prompt names, e.g. ["@acme/onboarding"].',
    });
  }
  return { root, config, prompts };
}

const entries = (prompts: unknown[] | undefined) => (prompts ?? []).map((item) => (typeof item === 'string' ? item : undefined));

export function addPromptToJson(text: string, name: string, where: string, key?: string): SourceEdit {
  const { root, config, prompts } = parseJsonConfig(text, key, where);
  const plan = planAdd(entries(prompts), name, where);
  if (plan.kind === 'unchanged') return { text, edit: { changed: false, action: 'unchanged', entry: name } };
  if (plan.kind === 'replace') prompts![plan.index] = name;
  else if (plan.kind === 'insert') prompts!.splice(plan.index, 0, name);
  else config.prompts = [...(prompts ?? []), name];
  const edit =
    plan.kind === 'replace'
      ? { changed: true, action: 'replaced' as const, entry: name, previous: plan.previous }
      : { changed: true, action: 'added' as const, entry: name };
  return { text: stringifyJson(root, detectJsonStyle(text)), edit };
}

export function removePromptFromJson(text: string, name: string, where: string, key?: string): SourceEdit {
  const { root, prompts } = parseJsonConfig(text, key, where);
  if (!prompts) {
    throw new ConfigError(`${where} has no prompts option, so "${name}" is not in it.`, {
      hint: 'Without a prompts option every prompt the service lists is locked; name the ones you want with promptlock add <name>.',
    });
  }
  const { index, entry } = planRemove(entries(prompts), name, where);
  prompts.splice(index, 1);
  return { text: stringifyJson(root, detectJsonStyle(text)), edit: { changed: true, action: 'removed', entry } };
}
