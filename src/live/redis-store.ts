/**
 * The fleet store (docs/live.md, "Fleet store"): every instance reads what one of them fetched,
 * and `SET key token NX PX ttl` elects one refresher per prompt per ttl, so the service sees one
 * request per prompt per ttl for the whole fleet.
 *
 * ioredis is an optional peer dependency, imported on first use: apps without Redis never load it.
 * Redis being slow or down must never become the app's problem: short connect and command
 * timeouts, no offline queue (a command while disconnected fails at once instead of piling up),
 * and every failure is thrown to the caller, which keeps working from its own memory.
 */
import { randomBytes } from 'node:crypto';
import type { LiveStore, StoredPrompt } from './store.js';

export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://`). */
  url: string;
  /** Prefix of every key. @default 'promptlock:live:' */
  prefix?: string | undefined;
  /** Longest wait for a connection, first connect included. @default 500 */
  connectTimeoutMs?: number | undefined;
  /** Longest wait for one command. @default 250 */
  commandTimeoutMs?: number | undefined;
  /** How long a fetched prompt stays in Redis (the fleet's last good version). @default 86400 */
  keepSeconds?: number | undefined;
  /**
   * Largest value read: one larger is refused without being read (its size is asked first).
   * @default 8388608 (8 MiB, the largest answer live takes from the service)
   */
  maxValueBytes?: number | undefined;
}

/** Returns the value of KEYS[1], or its length when it is over ARGV[1] bytes: one atomic round trip. */
const BOUNDED_GET = `local n = redis.call('STRLEN', KEYS[1])
if n > tonumber(ARGV[1]) then return n end
return redis.call('GET', KEYS[1])`;

/** The part of an ioredis client this store uses. */
interface RedisClient {
  defineCommand(name: string, definition: { numberOfKeys: number; lua: string }): void;
  /** BOUNDED_GET, sent by its digest (EVALSHA) once Redis knows it. */
  promptlockBoundedGet(key: string, maxBytes: number): Promise<unknown>;
  set(key: string, value: string, ...args: Array<string | number>): Promise<string | null>;
  status: string;
  once(event: string, listener: (...args: unknown[]) => void): unknown;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
}

/** A connection error's code in words (the rest of ioredis's wording is its own, not the user's). */
const CONNECT_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections there',
  ENOTFOUND: 'the host name is not found',
  EAI_AGAIN: 'the host name could not be looked up',
  ETIMEDOUT: 'the connection timed out',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
};

/**
 * What a failed command says (in the `store-error` event): Redis's state in words, with the
 * address but never the password, instead of ioredis's internal wording ("Stream isn't writeable
 * and enableOfflineQueue options is false"). A reply error (NOAUTH, READONLY, OOM) is Redis's own
 * words and is kept.
 */
function storeFailure(where: string, connected: boolean, lastConnectError: unknown, error: unknown, timeoutMs: number): Error {
  const message = (error as Error | undefined)?.message ?? String(error);
  if (message === 'Command timed out')
    return new Error(`Redis at ${where} did not answer within ${timeoutMs} ms (commandTimeoutMs)`, { cause: error });
  if (connected) return new Error(`Redis at ${where} refused the command: ${message}`, { cause: error });
  const last = lastConnectError as NodeJS.ErrnoException | undefined;
  const why = last?.code ? `${CONNECT_CAUSES[last.code] ?? 'the connection failed'} (${last.code})` : last?.message;
  return new Error(`Redis at ${where} is not connected${why ? `: ${why}` : ''}`, { cause: error });
}

export function redisStore(options: RedisStoreOptions): LiveStore {
  if (!options || typeof options.url !== 'string' || !/^rediss?:\/\//.test(options.url)) {
    throw new TypeError('redisStore({ url }) needs a redis:// or rediss:// URL.');
  }
  const prefix = options.prefix ?? 'promptlock:live:';
  const connectTimeout = options.connectTimeoutMs ?? 500;
  const commandTimeout = options.commandTimeoutMs ?? 250;
  const keepMs = Math.round((options.keepSeconds ?? 86_400) * 1000);
  const maxValueBytes = options.maxValueBytes ?? 8 * 1024 * 1024;
  const token = randomBytes(8).toString('hex');
  const where = URL.canParse(options.url) ? new URL(options.url).host : 'the url given';
  let client: Promise<RedisClient> | undefined;
  let lastConnectError: unknown;
  let closed = false;

  async function open(): Promise<RedisClient> {
    let Redis: new (url: string, options: Record<string, unknown>) => RedisClient;
    try {
      const module = (await import('ioredis')) as unknown as { Redis?: typeof Redis; default?: typeof Redis };
      Redis = (module.Redis ?? module.default)!;
    } catch (error) {
      throw new Error('redisStore needs the ioredis package: npm install ioredis', { cause: error });
    }
    const redis = new Redis(options.url, {
      connectTimeout,
      commandTimeout,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // Reconnect quietly in the background, at most once a second.
      retryStrategy: (times: number) => Math.min(times * 100, 1000),
      lazyConnect: false,
    });
    redis.defineCommand('promptlockBoundedGet', { numberOfKeys: 1, lua: BOUNDED_GET });
    // Failures are reported by the commands, which name the last one; an unhandled 'error' event would crash the app.
    redis.on('error', (error) => {
      lastConnectError = error;
    });
    redis.on('ready', () => {
      lastConnectError = undefined;
    });
    // The first commands wait for the first connection (bounded), so a fleet that starts together
    // does not send its first refreshes straight to the service while Redis is still connecting.
    if (redis.status !== 'ready') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, connectTimeout);
        redis.once('ready', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return redis;
  }

  function connection(): Promise<RedisClient> {
    if (closed) return Promise.reject(new Error('the Redis store is closed'));
    client ??= open();
    return client;
  }

  /** One command on the connection; a failure says what state Redis is in. */
  async function command<T>(send: (redis: RedisClient) => Promise<T>): Promise<T> {
    const redis = await connection();
    try {
      return await send(redis);
    } catch (error) {
      throw storeFailure(where, redis.status === 'ready', lastConnectError, error, commandTimeout);
    }
  }

  return {
    async get(key) {
      // The size first: a huge value planted in Redis is never read into memory, let alone parsed.
      const answer = await command((redis) => redis.promptlockBoundedGet(prefix + key, maxValueBytes));
      if (answer === null) return undefined;
      if (typeof answer === 'number') {
        return {
          fetchedAt: 0,
          prompt: undefined,
          refused: `its value is ${answer} bytes, over the bound of ${maxValueBytes} (maxValueBytes)`,
        };
      }
      let value: Partial<StoredPrompt> | undefined;
      try {
        value = JSON.parse(String(answer)) as Partial<StoredPrompt>;
      } catch {
        value = undefined;
      }
      if (typeof value?.fetchedAt !== 'number') return { fetchedAt: 0, prompt: undefined, refused: 'its value is not an entry' };
      return { fetchedAt: value.fetchedAt, prompt: value.prompt, mac: typeof value.mac === 'string' ? value.mac : undefined };
    },
    async set(key, value) {
      await command((redis) => redis.set(prefix + key, JSON.stringify(value), 'PX', keepMs));
    },
    async claim(key, ms) {
      const answer = await command((redis) => redis.set(`${prefix}${key}:refresher`, token, 'PX', Math.max(1, Math.round(ms)), 'NX'));
      return answer === 'OK';
    },
    async hold(key, ms) {
      await command((redis) => redis.set(`${prefix}${key}:refresher`, `${token}:hold`, 'PX', Math.max(1, Math.round(ms))));
    },
    async close() {
      closed = true;
      const pending = client;
      client = undefined;
      if (!pending) return;
      const redis = await pending.catch(() => undefined);
      if (!redis) return;
      // quit waits for pending replies; when Redis is gone it would wait for the reconnect.
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}
