import { type RequestedEntry, selectorFor } from '../config/prompt-entry.js';
import { ConfigError, ServiceError } from '../errors.js';
import { basePackageName, parsePackageName, type Selector } from '../package-name.js';
import type { SyncOptions, Target } from './types.js';

function baseName(raw: string): { name: string; selector: Selector | undefined } {
  const parsed = parsePackageName(raw);
  if (!parsed) {
    throw new ConfigError(`"${raw}" is not a package name.`, { hint: 'Expected @workspace/package[:vN|latest|draft].' });
  }
  return { name: basePackageName(parsed), selector: parsed.selector === 'v0' ? 'draft' : parsed.selector };
}

/** The prompts to sync, with the selector each is requested at. */
export async function resolveTargets(
  entries: readonly RequestedEntry[],
  options: SyncOptions,
  listed: () => Promise<string[]>,
): Promise<{ targets: Target[]; partial: boolean }> {
  if (options.names && options.names.length > 0) {
    const targets = options.names.map((raw) => {
      const { name, selector } = baseName(raw);
      const wanted = selectorFor(entries, name);
      if (wanted === undefined) {
        throw new ConfigError(`${name} is not requested by ${options.config.configPath ?? 'the config'}.`, {
          hint: `Add it first: promptlock add ${raw}`,
        });
      }
      if (selector !== undefined && selector !== wanted) {
        throw new ConfigError(`${raw} does not match the config, which asks for ${name} at ${wanted ?? 'no selector'}.`, {
          hint: `Change the config (promptlock add ${raw}) or sync ${name} without a selector.`,
        });
      }
      return { name, selector: wanted };
    });
    return { targets, partial: true };
  }
  const map = new Map<string, Selector | null>();
  const needsList = entries.length === 0 || entries.some((e) => e.kind === 'glob');
  const names = needsList ? await listed() : [];
  if (entries.length === 0) for (const name of names) map.set(name, 'latest');
  for (const entry of entries) {
    if (entry.kind !== 'glob') continue;
    const matched = names.filter((name) => parsePackageName(name)?.workspace === entry.workspace);
    if (matched.length === 0) {
      throw new ServiceError(`${entry.raw} matched no prompt: the service lists none in workspace "${entry.workspace}".`, {
        code: 'empty_glob',
        hint: `Check the workspace name, and that your API key can read workspace "${entry.workspace}".`,
      });
    }
    for (const name of matched) if (!map.has(name)) map.set(name, entry.selector);
  }
  for (const entry of entries) if (entry.kind === 'exact') map.set(entry.name, entry.selector);
  const targets = [...map].map(([name, selector]) => ({ name, selector })).sort((a, b) => a.name.localeCompare(b.name));
  return { targets, partial: false };
}
