/**
 * `RedisEventStore`: the SSE event history of every instance in one Redis, so a client that lost a stream resumes
 * it with `Last-Event-ID` on whichever instance its reconnection reaches.
 *
 * Event ids are `<streamId>.<seq>`, `seq` from one Redis counter for the whole store: unique across instances and
 * never repeated, not even by a stream evicted and written again, nor after Redis lost the counter (a restart
 * without persistence, or from an older snapshot): each seq is the previous one plus one but at least Redis's clock
 * in microseconds (`TIME`), so, given a clock that does not go back, an id issued after the loss is above every id
 * issued before it (a 16-digit seq, exact as a JavaScript number until the year 2255); the stream, and so the session (the stream id up
 * to its last `.`, a random token, never the session id), is read from the id itself, and a replay reads only that
 * stream's events, so it can never cross a session. Bounded as `InMemoryEventStore` is — events per stream, streams
 * per session and bytes per session (a session over its budget only ever loses its own streams), streams in all —
 * and each session's keys expire `streamTtlMs` after its last write (the `RedisSessionStore` heartbeat extends them while
 * an instance holds the session). Every write and every replay is one Lua
 * script: one round trip, atomic.
 * @see MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery"
 *
 * Keys (`P` = the key prefix): `P:ev:seq` (the counter: the last seq issued), `P:ev:s:<streamId>` (a sorted set of the stream's events,
 * scored by seq, members `<seq>:<size>:<json>`), `P:ev:o:<session>` (the session's streams by last write),
 * `P:ev:b:<session>` (bytes per stream, `#` for the total), `P:ev:all` (every stream by last write).
 */
import type { JsonRpcMessage } from '@switchboard/jsonrpc';
import { DEFAULT_MAX_BYTES_PER_SESSION, DEFAULT_MAX_EVENTS_PER_STREAM, DEFAULT_MAX_STREAMS, DEFAULT_MAX_STREAMS_PER_SESSION, type EventReplaySink, type EventStore, type PrimingEvent } from '@switchboard/mcp/stores';
import type { Redis } from 'ioredis';
import { DEFAULT_KEY_PREFIX, guarded, LuaScript } from './connection.js';

/** Default of {@link RedisEventStoreOptions.streamTtlMs}: two hours. */
export const DEFAULT_STREAM_TTL_MS = 2 * 60 * 60 * 1000;

/** Options of {@link RedisEventStore}. */
export interface RedisEventStoreOptions {
  /** The connection (see `connectRedis`); the store does not close it. */
  readonly redis: Redis;
  /** Prefix of every key. @default 'switchboard:' */
  readonly keyPrefix?: string;
  /** Events kept per stream, older ones dropped first. @default 1000 */
  readonly maxEventsPerStream?: number;
  /** Streams kept in all; the least recently written goes first. @default 10_000 */
  readonly maxStreams?: number;
  /** Streams kept per session; a session over it loses its own least recently written stream. @default 100 */
  readonly maxStreamsPerSession?: number;
  /** Bytes of events (UTF-16 units of their JSON text) kept per session. @default 16 MiB */
  readonly maxBytesPerSession?: number;
  /** A session's events expire this long (ms) after its last write. @default 7_200_000 (2 h) */
  readonly streamTtlMs?: number;
}

const COMMON = `
local p = ARGV[1]
local all = p .. 'ev:all'
local function ownerOf(s) return string.match(s, '^(.*)%.[^.]*$') or '' end
local function drop(s)
  local o = ownerOf(s)
  local ob = p .. 'ev:b:' .. o
  local b = tonumber(redis.call('HGET', ob, s) or '0')
  redis.call('DEL', p .. 'ev:s:' .. s)
  redis.call('ZREM', p .. 'ev:o:' .. o, s)
  redis.call('ZREM', all, s)
  redis.call('HDEL', ob, s)
  redis.call('HINCRBY', ob, '#', 0 - b)
  if redis.call('ZCARD', p .. 'ev:o:' .. o) == 0 then redis.call('DEL', ob) end
end
`;

/** ARGV: prefix, stream, json, size, maxEvents, maxStreams, maxPerSession, maxBytes, ttlMs → seq. */
const STORE = new LuaScript(`${COMMON}
local stream, json, size = ARGV[2], ARGV[3], tonumber(ARGV[4])
local maxEvents, maxStreams, maxPer, maxBytes, ttl = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local owner = ownerOf(stream)
local skey, okey, bkey = p .. 'ev:s:' .. stream, p .. 'ev:o:' .. owner, p .. 'ev:b:' .. owner
local function shift()
  local popped = redis.call('ZPOPMIN', skey)
  if popped[1] == nil then return end
  local dropped = tonumber(string.match(popped[1], '^%d+:(%d+):'))
  redis.call('HINCRBY', bkey, stream, 0 - dropped)
  redis.call('HINCRBY', bkey, '#', 0 - dropped)
end
if redis.call('ZSCORE', all, stream) == false then
  if redis.call('ZCARD', okey) >= maxPer then drop(redis.call('ZRANGE', okey, 0, 0)[1]) end
  if redis.call('ZCARD', all) >= maxStreams then drop(redis.call('ZRANGE', all, 0, 0)[1]) end
end
-- The next seq: one more than the last, and at least Redis's clock in microseconds (TIME: seconds, microseconds;
-- about 1.8e15 in 2026, exact in a double below 2^53 until the year 2255), so a Redis that lost the counter (a
-- restart without persistence, or from an older snapshot) still issues ids above every id issued before it.
local now = redis.call('TIME')
local seq = math.max(tonumber(redis.call('GET', p .. 'ev:seq') or '0') + 1, tonumber(now[1]) * 1000000 + tonumber(now[2]))
redis.call('SET', p .. 'ev:seq', string.format('%d', seq))
redis.call('ZADD', all, seq, stream)
redis.call('ZADD', okey, seq, stream)
redis.call('ZADD', skey, seq, string.format('%d:%d:', seq, size) .. json)
redis.call('HINCRBY', bkey, stream, size)
redis.call('HINCRBY', bkey, '#', size)
if redis.call('ZCARD', skey) > maxEvents then shift() end
while tonumber(redis.call('HGET', bkey, '#') or '0') > maxBytes do
  local oldest = redis.call('ZRANGE', okey, 0, 0)[1]
  if oldest ~= stream then drop(oldest)
  elseif redis.call('ZCARD', skey) > 1 then shift()
  else break end
end
for _, k in ipairs({ skey, okey, bkey }) do redis.call('PEXPIRE', k, ttl) end
return seq
`);

/** ARGV: prefix, stream, seq → the stream's members after seq, or false when the stream or seq is unknown. */
const REPLAY = new LuaScript(`
local p, stream, seq = ARGV[1], ARGV[2], tonumber(ARGV[3])
if tonumber(redis.call('GET', p .. 'ev:seq') or '0') < seq then return false end
local skey = p .. 'ev:s:' .. stream
if redis.call('EXISTS', skey) == 0 then return false end
return redis.call('ZRANGEBYSCORE', skey, '(' .. ARGV[3], '+inf')
`);

/** ARGV: prefix, stream. */
const DELETE = new LuaScript(`${COMMON}
if redis.call('ZSCORE', all, ARGV[2]) ~= false or redis.call('EXISTS', p .. 'ev:s:' .. ARGV[2]) == 1 then drop(ARGV[2]) end
return 1
`);

function ignore(): void {}

function parseEventId(eventId: string): { streamId: string; seq: number } | undefined {
  if (typeof eventId !== 'string') return undefined;
  const dot = eventId.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const seq = Number(eventId.slice(dot + 1));
  if (!/^[1-9][0-9]{0,15}$/.test(eventId.slice(dot + 1)) || !Number.isSafeInteger(seq)) return undefined;
  return { streamId: eventId.slice(0, dot), seq };
}

function bound(name: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`Invalid ${name}: expected a positive integer, got ${String(n)}`);
  return n;
}

/**
 * An {@link EventStore} in Redis, shared by every instance (see the file's description for ids, bounds and keys).
 * Its methods reject with a `RedisStoreError` while Redis is unreachable; the HTTP transport then logs the failure
 * and goes on without history for that event.
 * @example
 * const eventStore = new RedisEventStore({ redis: connectRedis({ url: 'redis://127.0.0.1:6379' }) });
 */
export class RedisEventStore implements EventStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #limits: readonly number[];

  /** @throws RangeError when a bound is not a positive integer */
  constructor(options: RedisEventStoreOptions) {
    this.#redis = options.redis;
    this.#prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.#limits = [
      bound('maxEventsPerStream', options.maxEventsPerStream, DEFAULT_MAX_EVENTS_PER_STREAM),
      bound('maxStreams', options.maxStreams, DEFAULT_MAX_STREAMS),
      bound('maxStreamsPerSession', options.maxStreamsPerSession, DEFAULT_MAX_STREAMS_PER_SESSION),
      bound('maxBytesPerSession', options.maxBytesPerSession, DEFAULT_MAX_BYTES_PER_SESSION),
      bound('streamTtlMs', options.streamTtlMs, DEFAULT_STREAM_TTL_MS),
    ];
  }

  /** Stores one event; resolves with its id. `size`: the length of its JSON text, counted against the session's bytes. */
  storeEvent(streamId: string, message: JsonRpcMessage | PrimingEvent, size = 0): Promise<string> {
    return guarded(this.#redis, 'RedisEventStore.storeEvent', async () => {
      const seq = (await STORE.run(this.#redis, [this.#prefix, streamId, JSON.stringify(message), Math.max(0, Math.floor(size)), ...this.#limits])) as number;
      return `${streamId}.${seq}`;
    });
  }

  replayEventsAfter(lastEventId: string, sink: EventReplaySink): Promise<string | undefined> {
    return guarded(this.#redis, 'RedisEventStore.replayEventsAfter', async () => {
      const parsed = parseEventId(lastEventId);
      if (parsed === undefined) return undefined;
      const members = (await REPLAY.run(this.#redis, [this.#prefix, parsed.streamId, parsed.seq])) as string[] | null;
      if (members === null) return undefined;
      for (const member of members) {
        const first = member.indexOf(':');
        const second = member.indexOf(':', first + 1);
        const pending = sink.send(`${parsed.streamId}.${member.slice(0, first)}`, JSON.parse(member.slice(second + 1)) as JsonRpcMessage | PrimingEvent);
        // As the in-memory store: a sink's failure is its own, the replay goes on.
        if (pending !== undefined) pending.catch(ignore);
      }
      return parsed.streamId;
    });
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return guarded(this.#redis, 'RedisEventStore.getStreamIdForEventId', async () => {
      const parsed = parseEventId(eventId);
      if (parsed === undefined) return undefined;
      return (await this.#redis.exists(`${this.#prefix}ev:s:${parsed.streamId}`)) === 1 ? parsed.streamId : undefined;
    });
  }

  deleteStream(streamId: string): Promise<void> {
    return guarded(this.#redis, 'RedisEventStore.deleteStream', async () => {
      await DELETE.run(this.#redis, [this.#prefix, streamId]);
    });
  }
}
