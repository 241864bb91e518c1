/**
 * Options of the local Prompt Service and their defaults. The defaults are the service's (docs/service-interface.md: rate limits,
 * page sizes) so a plain `startServer({ dir })` behaves like the hosted service.
 */
import { ConfigError } from '../errors.js';
import { isSlug } from '../package-name.js';

import { LOCAL_TEST_KEY } from '../secrets.js';

/** The documented key used when no key is given: public, for local development and tests only. */
export { LOCAL_TEST_KEY };

export type FaultKind = '503' | 'reset' | 'truncate';

export interface ServerOptions {
  /** A hand-authored workspace folder or a promptlock snapshots folder (both forms are read). */
  dir: string;
  /** @default '127.0.0.1' */
  host?: string | undefined;
  /**
   * Host names the service answers to besides loopback names (`localhost`, `*.localhost`), IP
   * addresses and `host`: a request whose `Host` header names anything else gets 403, so a page
   * whose name was re-pointed at this machine (DNS rebinding) cannot read the prompts.
   * @default []
   */
  allowedHosts?: string[] | undefined;
  /** `0` picks a free port. @default 0 */
  port?: number | undefined;
  /** A key without `workspace` reads every workspace. @default [{ key: LOCAL_TEST_KEY }] */
  keys?: Array<{ key: string; workspace?: string | undefined }> | undefined;
  /** @default 'bare' */
  envelope?: 'bare' | 'wrapped' | undefined;
  /** @default 'nested' */
  errors?: 'flat' | 'nested' | undefined;
  /** How list items name a package: `@ws/pkg`, `@ws/pkg:v3` (its latest version) or `pkg`. @default 'full' */
  listNames?: 'full' | 'versioned' | 'bare' | undefined;
  /** @default the service's (docs/service-interface.md): 1,000/min and 10,000/h with a key, 100/min and 1,000/h without */
  rateLimits?:
    | {
        authenticated?: { perMinute?: number | undefined; perHour?: number | undefined } | undefined;
        unauthenticated?: { perMinute?: number | undefined; perHour?: number | undefined } | undefined;
        minuteMs?: number | undefined;
        hourMs?: number | undefined;
      }
    | undefined;
  /** Larger request bodies get 413. @default 1 MiB */
  maxBodyBytes?: number | undefined;
  /** Delay added before every response, for benchmarks. @default 0 */
  latencyMs?: number | undefined;
  /** That fraction of /v1 and /api requests fail; deterministic when `seed` is given. */
  faults?: { rate: number; seed?: number | undefined; kinds?: FaultKind[] | undefined } | undefined;
  /** Lifetime of signed context-file URLs. @default 300 */
  urlTtlSeconds?: number | undefined;
  /** Receives one access-log line per request (never the key). */
  log?: ((line: string) => void) | undefined;
}

export interface ServerStats {
  requests: number;
  /** Keys: 'list', 'get', 'health', 'descriptor', 'download-url', 'file', 'other'. */
  byRoute: Record<string, number>;
  /** HTTP status as a string, or 'reset' / 'truncate' for injected socket faults. */
  byStatus: Record<string, number>;
}

export interface RunningServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:43123`. */
  url: string;
  port: number;
  stats: ServerStats;
  resetStats(): void;
  /** Re-reads the whole folder; resolves once the changes are served. */
  reload(): Promise<void>;
  close(): Promise<void>;
  /** What is being served right now (for the CLI's start line). */
  counts(): { prompts: number; workspaces: number };
}

export interface WindowLimits {
  perMinute: number;
  perHour: number;
}

export interface ResolvedServerOptions {
  dir: string;
  host: string;
  /** Lower-case names (`host` among them when it is a name), besides loopback names and IP addresses. */
  allowedHosts: ReadonlySet<string>;
  port: number;
  keys: Array<{ key: string; workspace: string | undefined }>;
  envelope: 'bare' | 'wrapped';
  errors: 'flat' | 'nested';
  listNames: 'full' | 'versioned' | 'bare';
  rateLimits: { authenticated: WindowLimits; unauthenticated: WindowLimits; minuteMs: number; hourMs: number };
  maxBodyBytes: number;
  latencyMs: number;
  faults: { rate: number; seed: number | undefined; kinds: FaultKind[] } | undefined;
  urlTtlSeconds: number;
  log: ((line: string) => void) | undefined;
}

function count(name: string, value: number | undefined, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
    throw new ConfigError(`Invalid value for option "${name}": expected an integer ${range}, got ${String(value)}.`);
  }
  return value;
}

function oneOf<T extends string>(name: string, value: T | undefined, allowed: readonly T[]): T {
  if (value === undefined) return allowed[0]!;
  if (!allowed.includes(value)) {
    throw new ConfigError(
      `Invalid value for option "${name}": expected ${allowed.map((a) => `"${a}"`).join(' or ')}, got "${String(value)}".`,
    );
  }
  return value;
}

function resolveKeys(keys: ServerOptions['keys']): ResolvedServerOptions['keys'] {
  if (!keys || keys.length === 0) return [{ key: LOCAL_TEST_KEY, workspace: undefined }];
  return keys.map(({ key, workspace }, index) => {
    // Never quote the key itself: the message would leak it.
    if (typeof key !== 'string' || !/^[\x21-\x7e]{8,}$/.test(key)) {
      throw new ConfigError(`Invalid value for option "keys[${index}].key": a key is at least 8 printable characters without spaces.`);
    }
    if (workspace !== undefined && !isSlug(workspace)) {
      throw new ConfigError(
        `Invalid value for option "keys[${index}].workspace": "${workspace}" is not a workspace slug (lower-case letters, digits, hyphens).`,
      );
    }
    return { key, workspace };
  });
}

function resolveFaults(faults: ServerOptions['faults']): ResolvedServerOptions['faults'] {
  if (!faults || faults.rate === 0) return undefined;
  if (!(faults.rate > 0 && faults.rate <= 1)) {
    throw new ConfigError(`Invalid value for option "faults.rate": expected a fraction in (0, 1], got ${String(faults.rate)}.`);
  }
  const kinds = faults.kinds && faults.kinds.length > 0 ? faults.kinds : (['503', 'reset', 'truncate'] as FaultKind[]);
  for (const kind of kinds) oneOf('faults.kinds', kind, ['503', 'reset', 'truncate'] as const);
  return { rate: faults.rate, seed: faults.seed, kinds };
}

function resolveAllowedHosts(host: string, names: ServerOptions['allowedHosts']): ReadonlySet<string> {
  const allowed = new Set<string>();
  for (const [index, name] of (names ?? []).entries()) {
    if (typeof name !== 'string' || !/^[A-Za-z0-9.-]+\.?$/.test(name)) {
      throw new ConfigError(
        `Invalid value for option "allowedHosts[${index}]": expected a host name such as "prompts.test", got ${JSON.stringify(name)}.`,
      );
    }
    allowed.add(name.toLowerCase().replace(/\.$/, ''));
  }
  allowed.add(host.toLowerCase().replace(/\.$/, ''));
  return allowed;
}

/** Fills in defaults and rejects bad values with a `ConfigError` naming the option. */
export function resolveServerOptions(options: ServerOptions): ResolvedServerOptions {
  if (typeof options.dir !== 'string' || options.dir === '') {
    throw new ConfigError('Invalid value for option "dir": expected the folder to serve.');
  }
  const limits = options.rateLimits ?? {};
  const host = options.host ?? '127.0.0.1';
  return {
    dir: options.dir,
    host,
    allowedHosts: resolveAllowedHosts(host, options.allowedHosts),
    port: count('port', options.port, 0, 0, 65_535),
    keys: resolveKeys(options.keys),
    envelope: oneOf('envelope', options.envelope, ['bare', 'wrapped'] as const),
    errors: oneOf('errors', options.errors, ['nested', 'flat'] as const),
    listNames: oneOf('listNames', options.listNames, ['full', 'versioned', 'bare'] as const),
    rateLimits: {
      authenticated: {
        perMinute: count('rateLimits.authenticated.perMinute', limits.authenticated?.perMinute, 1000),
        perHour: count('rateLimits.authenticated.perHour', limits.authenticated?.perHour, 10_000),
      },
      unauthenticated: {
        perMinute: count('rateLimits.unauthenticated.perMinute', limits.unauthenticated?.perMinute, 100),
        perHour: count('rateLimits.unauthenticated.perHour', limits.unauthenticated?.perHour, 1000),
      },
      minuteMs: count('rateLimits.minuteMs', limits.minuteMs, 60_000, 1),
      hourMs: count('rateLimits.hourMs', limits.hourMs, 3_600_000, 1),
    },
    maxBodyBytes: count('maxBodyBytes', options.maxBodyBytes, 1024 * 1024, 1),
    latencyMs: count('latencyMs', options.latencyMs, 0),
    faults: resolveFaults(options.faults),
    urlTtlSeconds: count('urlTtlSeconds', options.urlTtlSeconds, 300, 1),
    log: options.log,
  };
}
