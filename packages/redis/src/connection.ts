/**
 * The Redis connection the stores share, and what a lost connection looks like to them: `ioredis` reconnects on
 * its own (with a bounded, growing delay, forever), a command made while the connection is down is retried on the
 * next connections at most `maxRetriesPerRequest` times and then fails, and every failure reaches the caller as a
 * {@link RedisStoreError} naming the store operation. Connection errors are logged, never thrown at the process
 * (an `ioredis` client with no `error` listener prints them; ours has one).
 */
import { silentLogger, type Logger } from '@switchboard/jsonrpc';
import { Redis } from 'ioredis';

/** Options of {@link connectRedis}. */
export interface RedisConnectionOptions {
  /**
   * The server, as a `redis://[[user]:password@]host[:port][/db]` or `rediss://` (TLS) URL.
   * @default 'redis://127.0.0.1:6379'
   */
  readonly url?: string | undefined;
  /** Where connection losses and recoveries are reported. @default silent */
  readonly logger?: Logger;
  /**
   * How many reconnection attempts a command made while the connection is down waits through before it fails
   * with a {@link RedisStoreError}. @default 2
   */
  readonly maxRetriesPerRequest?: number;
  /** Longest delay (ms) between two reconnection attempts; they start at 50 ms and double. @default 2000 */
  readonly maxReconnectDelayMs?: number;
  /** A command not answered this long (ms) fails. @default 5000 */
  readonly commandTimeoutMs?: number;
  /** Connecting gives up after this long (ms), and the next attempt follows. @default 2000 */
  readonly connectTimeoutMs?: number;
  /** Send the commands of one event-loop turn as one pipeline (`ioredis`'s `enableAutoPipelining`). @default true */
  readonly autoPipelining?: boolean;
}

/** What a store rejects with when Redis failed it: the connection is down, or a command failed or timed out. */
export class RedisStoreError extends Error {
  override readonly name = 'RedisStoreError';
  /** The store operation that failed, e.g. `RedisSessionStore.count`. */
  readonly operation: string;

  constructor(operation: string, cause: unknown) {
    super(`Redis store failed: ${operation}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.operation = operation;
  }
}

/**
 * A new `ioredis` client with the stores' settings: bounded retries per command, reconnection forever with a
 * capped delay, offline queueing (a command waits for the next connection, within its retries), errors logged.
 * @throws TypeError when `url` is not a `redis:` or `rediss:` URL
 */
export function connectRedis(options: RedisConnectionOptions = {}): Redis {
  const url = options.url ?? 'redis://127.0.0.1:6379';
  if (!/^rediss?:\/\//.test(url)) throw new TypeError(`Invalid Redis URL: expected redis://host:port or rediss://host:port, got "${url.replace(/\/\/[^@/]*@/, '//…@')}"`);
  const logger = options.logger ?? silentLogger;
  const maxDelay = options.maxReconnectDelayMs ?? 2000;
  const redis = new Redis(url, {
    maxRetriesPerRequest: options.maxRetriesPerRequest ?? 2,
    commandTimeout: options.commandTimeoutMs ?? 5000,
    connectTimeout: options.connectTimeoutMs ?? 2000,
    retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt, 10), maxDelay),
    enableOfflineQueue: true,
    // Commands issued in one event-loop turn (the events an SSE stream writes at once, the touches of concurrent
    // requests) go out as one pipeline: one write, one round trip.
    enableAutoPipelining: options.autoPipelining ?? true,
    lazyConnect: false,
  });
  watch(redis, logger);
  return redis;
}

/** Logs the losses and recoveries of `redis`'s connection (one line per loss, not one per attempt). */
export function watch(redis: Redis, logger: Logger): void {
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger.error('Redis connection lost; reconnecting (store operations fail until it is back)', { error: error.message });
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info('Redis connection restored');
  });
}

/** Runs `run`, turning its failure into a {@link RedisStoreError} for `operation`. */
export async function guarded<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof RedisStoreError || error instanceof TypeError) throw error;
    throw new RedisStoreError(operation, error);
  }
}

/** A Lua script run by its SHA1 (`EVALSHA`), loaded on first use and again after a server restart (`NOSCRIPT`). */
export class LuaScript {
  readonly #source: string;
  #sha: string | undefined;

  constructor(source: string) {
    this.#source = source;
  }

  async run(redis: Redis, args: readonly (string | number)[]): Promise<unknown> {
    this.#sha ??= (await redis.script('LOAD', this.#source)) as string;
    try {
      return await redis.evalsha(this.#sha, 0, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      this.#sha = (await redis.script('LOAD', this.#source)) as string;
      return redis.evalsha(this.#sha, 0, ...args);
    }
  }
}

/** The default key prefix of every store: `switchboard:`. */
export const DEFAULT_KEY_PREFIX = 'switchboard:';
