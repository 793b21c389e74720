/**
 * `RedisRequestStateStore`: the used `requestState` ids of every instance in one Redis, so a state continues one
 * retry across the whole deployment, not one per instance. A claim is one `SET <P>rs:<id> 1 NX PXAT <expiresAt>`:
 * atomic, and the record leaves Redis when the state expires (the codec refuses the state from then on anyway).
 * @see MCP 2026-07-28 basic/patterns/mrtr.mdx "Security Considerations"
 */
import type { RequestStateStore } from '@switchboard/mcp/stores';
import type { Redis } from 'ioredis';
import { DEFAULT_KEY_PREFIX, guarded } from './connection.js';

/** Options of {@link RedisRequestStateStore}. */
export interface RedisRequestStateStoreOptions {
  /** The connection (see `connectRedis`); the store does not close it. */
  readonly redis: Redis;
  /** Prefix of every key. @default 'switchboard:' */
  readonly keyPrefix?: string;
}

/**
 * A {@link RequestStateStore} in Redis. `claim` rejects with a `RedisStoreError` while Redis is unreachable: the
 * retry is then refused rather than risk a replay.
 */
export class RedisRequestStateStore implements RequestStateStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(options: RedisRequestStateStoreOptions) {
    this.#redis = options.redis;
    this.#prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  }

  claim(id: string, expiresAt: number): Promise<boolean> {
    return guarded(this.#redis, 'RedisRequestStateStore.claim', async () => {
      if (typeof id !== 'string' || !(expiresAt > Date.now())) return false;
      return (await this.#redis.set(`${this.#prefix}rs:${id}`, '1', 'PXAT', Math.ceil(expiresAt), 'NX')) === 'OK';
    });
  }
}
