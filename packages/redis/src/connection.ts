/**
 * The Redis connection the stores share, and what a lost connection looks like to them: `ioredis` reconnects on
 * its own (with a bounded, growing delay, forever); while it does, a store operation fails at once (see
 * {@link guarded}) instead of queueing behind the reconnection; a command already sent when the connection drops
 * (or queued during a reconnection attempt) is retried on the next connections at most `maxRetriesPerRequest`
 * times and then fails; every failure reaches the caller as a {@link RedisStoreError} naming the store operation.
 * Connection errors are logged, never thrown at the process (an `ioredis` client with no `error` listener prints
 * them; ours has one).
 */
import { neverThrowing, silentLogger, type Logger } from '@switchboard/jsonrpc';
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
   * How many reconnection attempts a command caught by a connection loss (sent, or queued while connecting) waits
   * through before it fails with a {@link RedisStoreError}; a store operation begun while the loss is known fails at
   * once (see {@link guarded}). @default 2
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
 * capped delay, offline queueing (a command waits for the first connection, or for the next one within its retries;
 * the stores' {@link guarded} refuses at once while a lost connection is being re-established), errors logged.
 * @throws TypeError when `url` is not a `redis:` or `rediss:` URL
 */
export function connectRedis(options: RedisConnectionOptions = {}): Redis {
  const url = options.url ?? 'redis://127.0.0.1:6379';
  if (!/^rediss?:\/\//.test(url)) throw new TypeError(`Invalid Redis URL: expected redis://host:port or rediss://host:port, got "${url.replace(/\/\/[^@/]*@/, '//…@')}"`);
  const logger = neverThrowing(options.logger ?? silentLogger);
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
  const lost = (error?: string): void => {
    if (down) return;
    down = true;
    logger.error('Redis connection lost; reconnecting (store operations fail until it is back)', error === undefined ? {} : { error });
  };
  redis.on('error', (error: Error) => lost(error.message));
  // A connection that drops while no command is pending and comes back at the first attempt raises no 'error' (a
  // Redis restarted within ~50 ms, or a failover): ioredis scheduling a reconnection is the loss (a deliberate
  // quit() schedules none, so closing the stores logs nothing).
  redis.on('reconnecting', () => lost('connection closed'));
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info('Redis connection restored');
  });
}

/** The clients {@link guarded} saw connected: after that, a (re)connection attempt means the connection was lost. */
const connectedOnce = new WeakSet<object>();

/**
 * Whether `redis`'s connection is known to be lost: ioredis is waiting to reconnect (`reconnecting`), just lost it
 * (`close`), gave up (`end`), or, once the client was seen connected, is trying again (`connecting`, `connect` until
 * its ready check passes). Not while the first connection is being made (`wait`, `connecting`): a store used at
 * startup waits for it.
 */
export function connectionLost(redis: Pick<Redis, 'status'>): boolean {
  switch (redis.status) {
    case 'ready':
      connectedOnce.add(redis);
      return false;
    case 'reconnecting':
    case 'close':
    case 'end':
      return true;
    case 'connecting':
    case 'connect':
      return connectedOnce.has(redis);
    case 'wait':
      return false;
  }
}

/**
 * Runs `run`, turning its failure into a {@link RedisStoreError} for `operation`. While `redis`'s connection is
 * known to be lost ({@link connectionLost}) it rejects at once, without running `run`: a command would otherwise
 * wait in ioredis's offline queue through several reconnection attempts (seconds each), and whoever awaits the
 * store (a handler's progress notification behind the event store's append, a request behind the session store)
 * would stall with it. Before the first connection, and once it is back, commands go through as usual.
 */
export async function guarded<T>(redis: Pick<Redis, 'status'>, operation: string, run: () => Promise<T>): Promise<T> {
  if (connectionLost(redis)) throw new RedisStoreError(operation, `the connection is ${redis.status}`);
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
