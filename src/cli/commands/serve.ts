/**
 * `promptlock serve`: the local Prompt Service on a folder (docs/local-service.md). Turns flags
 * into `ServerOptions`, prints where it listens, and runs until SIGINT/SIGTERM.
 */
import path from 'node:path';
import { type Command, Option } from 'commander';
import { isLoopbackHost } from '../../config/base-url.js';
import { ConfigError } from '../../errors.js';
import { isSlug } from '../../package-name.js';
import { LOCAL_TEST_KEY, type ServerOptions } from '../../server/server-options.js';
import { firstSignal } from '../../util/first-signal.js';
import { pluralise } from '../../util/pluralise.js';
import { action, type CliRuntime } from '../action.js';

/** Port used when --port is not given; `--port 0` picks a free one. */
const DEFAULT_SERVE_PORT = 4010;

interface ServeFlags {
  dir: string;
  port: string;
  host: string;
  key: string[];
  allowedHost: string[];
  insecureTestKey?: boolean;
  envelope: 'bare' | 'wrapped';
  errors: 'flat' | 'nested';
  listNames: 'full' | 'versioned' | 'bare';
  limitPerMinute?: string;
  limitPerHour?: string;
  anonLimitPerMinute?: string;
  anonLimitPerHour?: string;
  minuteMs?: string;
  hourMs?: string;
  maxBody?: string;
  latency?: string;
  faults?: string;
  faultSeed?: string;
  faultKinds?: string;
  urlTtl?: string;
}

function integer(flag: string, text: string | undefined, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
    throw new ConfigError(`Invalid value for ${flag}: expected an integer ${range}, got "${text}".`);
  }
  return value;
}

/** `--key <key>` reads every workspace; `--key <workspace>=<key>` only that one. Never quotes the key. */
function parseKeyFlag(text: string, index: number): { key: string; workspace?: string } {
  const equals = text.indexOf('=');
  if (equals === -1) return { key: text };
  const workspace = text.slice(0, equals);
  if (!isSlug(workspace)) {
    throw new ConfigError(`Invalid value for --key (number ${index + 1}): "${workspace}" before "=" is not a workspace slug.`, {
      hint: 'Use --key <key>, or --key <workspace>=<key> to limit the key to one workspace.',
    });
  }
  return { key: text.slice(equals + 1), workspace };
}

function faultOptions(flags: ServeFlags): ServerOptions['faults'] {
  if (flags.faults === undefined) return undefined;
  const rate = Number(flags.faults);
  if (!/^(0|1|0?\.\d+|1\.0*)$/.test(flags.faults) || !(rate >= 0 && rate <= 1)) {
    throw new ConfigError(`Invalid value for --faults: expected a fraction from 0 to 1 (e.g. 0.1), got "${flags.faults}".`);
  }
  const kinds = flags.faultKinds?.split(',').map((kind) => kind.trim());
  for (const kind of kinds ?? []) {
    if (kind !== '503' && kind !== 'reset' && kind !== 'truncate') {
      throw new ConfigError(`Invalid value for --fault-kinds: "${kind}" is not one of 503, reset, truncate.`);
    }
  }
  return { rate, seed: integer('--fault-seed', flags.faultSeed), kinds: kinds as Array<'503' | 'reset' | 'truncate'> | undefined };
}

function serveOptions(flags: ServeFlags, cwd: string): ServerOptions {
  return {
    dir: path.resolve(cwd, flags.dir),
    host: flags.host,
    allowedHosts: flags.allowedHost,
    port: integer('--port', flags.port, 0, 65_535),
    keys: flags.key.map(parseKeyFlag),
    envelope: flags.envelope,
    errors: flags.errors,
    listNames: flags.listNames,
    rateLimits: {
      authenticated: {
        perMinute: integer('--limit-per-minute', flags.limitPerMinute),
        perHour: integer('--limit-per-hour', flags.limitPerHour),
      },
      unauthenticated: {
        perMinute: integer('--anon-limit-per-minute', flags.anonLimitPerMinute),
        perHour: integer('--anon-limit-per-hour', flags.anonLimitPerHour),
      },
      minuteMs: integer('--minute-ms', flags.minuteMs, 1),
      hourMs: integer('--hour-ms', flags.hourMs, 1),
    },
    maxBodyBytes: integer('--max-body', flags.maxBody, 1),
    latencyMs: integer('--latency', flags.latency),
    faults: faultOptions(flags),
    urlTtlSeconds: integer('--url-ttl', flags.urlTtl, 1),
  };
}

/**
 * Off loopback, the public test key would open every served prompt to the network: a key of
 * one's own is required, or `--insecure-test-key` to accept that on purpose (docs/local-service.md).
 */
function checkExposure(flags: ServeFlags): void {
  if (isLoopbackHost(flags.host) || flags.key.length > 0 || flags.insecureTestKey) return;
  throw new ConfigError(
    `Refusing to serve on ${flags.host} with the public test key: anyone who can reach this machine could read every served prompt.`,
    {
      hint: 'Pass --key <key> with a key of your own, or --insecure-test-key to accept the test key off loopback on purpose; or serve on 127.0.0.1 (the default).',
    },
  );
}

/** The address as bound (`http://0.0.0.0:4010`), not the loopback one clients on this machine use. */
function boundUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export function registerServe(program: Command, runtime: CliRuntime): void {
  program
    .command('serve')
    .description('run the local Prompt Service on a folder of prompts (hand-authored or synced snapshots)')
    .option('--dir <folder>', 'folder to serve', '.')
    .option('--port <port>', 'port to listen on; 0 picks a free one', String(DEFAULT_SERVE_PORT))
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .addOption(
      new Option('--key <key>', 'accepted API key, repeatable; <workspace>=<key> limits it to one workspace')
        .argParser((value: string, all: string[]) => [...all, value])
        .default([] as string[], 'the documented test key'),
    )
    .option('--insecure-test-key', 'accept the public test key on a host other than loopback (otherwise --key is required there)')
    .addOption(
      new Option(
        '--allowed-host <name>',
        'a host name the service answers to, repeatable (besides localhost, IP addresses and --host): other Host headers get 403',
      )
        .argParser((value: string, all: string[]) => [...all, value])
        .default([] as string[], 'none'),
    )
    .addOption(new Option('--envelope <form>', 'response form').choices(['bare', 'wrapped']).default('bare'))
    .addOption(new Option('--errors <shape>', 'error body shape').choices(['nested', 'flat']).default('nested'))
    .addOption(
      new Option('--list-names <form>', 'how list items name a package: @ws/pkg, @ws/pkg:vN or pkg')
        .choices(['full', 'versioned', 'bare'])
        .default('full'),
    )
    .option('--limit-per-minute <n>', 'requests per minute with a key (default 1000)')
    .option('--limit-per-hour <n>', 'requests per hour with a key (default 10000)')
    .option('--anon-limit-per-minute <n>', 'requests per minute without a valid key, per address (default 100)')
    .option('--anon-limit-per-hour <n>', 'requests per hour without a valid key, per address (default 1000)')
    .option('--minute-ms <ms>', 'length of the "minute" window, for tests (default 60000)')
    .option('--hour-ms <ms>', 'length of the "hour" window, for tests (default 3600000)')
    .option('--max-body <bytes>', 'larger request bodies get 413 (default 1048576)')
    .option('--latency <ms>', 'delay added before every response (default 0)')
    .option('--faults <rate>', 'fraction of API requests that fail (503, reset or truncated body)')
    .option('--fault-seed <n>', 'makes the injected faults repeatable')
    .option('--fault-kinds <list>', 'comma-separated: 503,reset,truncate (default all)')
    .option('--url-ttl <seconds>', 'lifetime of signed context-file URLs (default 300)')
    .action(
      action(runtime, async (ctx, flags: ServeFlags) => {
        const { logger } = ctx;
        const options = serveOptions(flags, ctx.io.cwd);
        checkExposure(flags);
        options.log = (line) => (line.startsWith('warning: ') ? logger.warn(line.slice(9)) : logger.verbose(line));
        // Handlers go in before the server starts, so an early Ctrl-C still closes it cleanly.
        const { signal: stopped, cancel } = firstSignal();
        let server;
        try {
          const { startServer } = await import('../../server/index.js');
          server = await startServer(options);
        } catch (error) {
          cancel();
          throw error;
        }
        const { prompts, workspaces } = server.counts();
        const keyNote = flags.key.length === 0 ? `; test key ${LOCAL_TEST_KEY}` : `; ${pluralise(flags.key.length, 'key')}`;
        const exposed = !isLoopbackHost(flags.host);
        if (exposed) {
          logger.warn(
            `serving on ${flags.host}, not loopback: anyone who can reach this machine on port ${server.port} can call it${flags.key.length === 0 ? ' with the public test key' : ' with a valid key'}. On this machine: ${server.url}`,
          );
        }
        logger.result(
          `promptlock serve listening on ${exposed ? boundUrl(flags.host, server.port) : server.url} (${pluralise(prompts, 'prompt')} in ${pluralise(workspaces, 'workspace')} from ${flags.dir}${keyNote})`,
        );
        // What a project's .env.local needs to sync from here (README, Quickstart); the key only if it is the public test key.
        logger.info(
          `To sync a project from it, put these lines in its .env.local:\nPROMPTLOCK_BASE_URL=${server.url}\nPROMPTLOCK_API_KEY=${flags.key.length === 0 ? LOCAL_TEST_KEY : '<one of the --key values>'}`,
        );
        const signal = await stopped;
        logger.info(`${signal}: stopping`);
        await server.close();
        logger.info('promptlock serve stopped');
        return 0;
      }),
    );
}
