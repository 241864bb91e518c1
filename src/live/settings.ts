/** The options of `createLivePrompts`, checked, with their defaults; and the lockfile it follows. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { decodeLockfile, type Lockfile } from '../store/lockfile-format.js';
import { foldersUp } from '../util/folders-up.js';
import { DEFAULT_BUDGET_SHARE, DEFAULT_LIMIT_PER_MINUTE } from '../util/poll-budget.js';
import type { LivePromptsOptions } from './types.js';

export interface LiveSettings {
  ttlMs: number;
  timeoutMs: number;
  requestTimeoutMs: number;
  /** Refreshes this process may send over a sliding minute. */
  perMinute: number;
  drafts: boolean;
}

export function liveSettings(options: LivePromptsOptions): LiveSettings {
  return {
    ttlMs: Math.round(positive('ttl', options.ttl, 60) * 1000),
    timeoutMs: positive('timeoutMs', options.timeoutMs, 1000, true),
    requestTimeoutMs: positive('requestTimeoutMs', options.requestTimeoutMs, 10_000),
    perMinute: Math.max(1, Math.floor(positive('rateLimit', options.rateLimit, DEFAULT_LIMIT_PER_MINUTE) * share(options.budgetShare))),
    drafts: options.drafts === true,
  };
}

/** The lockfile, and the project folder (its folder, or the working directory for parsed JSON). */
export function loadLockfile(option: string | object | undefined): { lockfile: Lockfile; projectDir: string } {
  if (option !== undefined && typeof option === 'object') {
    return { lockfile: decodeLockfile(JSON.stringify(option), 'the lockfile option'), projectDir: process.cwd() };
  }
  const file = typeof option === 'string' ? path.resolve(option) : findUp('prompts.lock.json');
  if (file === undefined || !existsSync(file)) {
    throw new ConfigError(
      `promptlock/live needs the lockfile the generated module was built from, and found none (${file ?? `no prompts.lock.json in ${process.cwd()} or above`}).`,
      { hint: 'Pass { lockfile: "path/to/prompts.lock.json" } (or its parsed JSON) to createLivePrompts, and ship it with the app.' },
    );
  }
  return { lockfile: decodeLockfile(readFileSync(file, 'utf8'), file), projectDir: path.dirname(file) };
}

function findUp(name: string): string | undefined {
  for (const dir of foldersUp(process.cwd())) {
    const candidate = path.join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

function positive(name: string, value: number | undefined, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new ConfigError(
      `Invalid value for option "${name}" of createLivePrompts: expected a ${allowZero ? 'non-negative' : 'positive'} number, got ${String(value)}.`,
    );
  }
  return value;
}

function share(value: number | undefined): number {
  if (value === undefined) return DEFAULT_BUDGET_SHARE;
  if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
    throw new ConfigError(
      `Invalid value for option "budgetShare" of createLivePrompts: expected a fraction in (0, 1], got ${String(value)}.`,
    );
  }
  return value;
}
