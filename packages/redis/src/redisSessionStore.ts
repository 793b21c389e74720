/**
 * `RedisSessionStore`: the HTTP session records of every instance in one Redis, so a session's record, its caller's
 * count and the scan of the least recently active sessions are the same on every instance.
 *
 * Expiry: a record's key lives `ttlMs` (the record's handshake or idle timeout; `orphanTtlMs` when it is `0`)
 * after its last write, to within a second (a request's touch, which writes only `lastActivity`, extends the keys
 * only when that gains a second or more: see TOUCH). While the instance that created it runs, it extends the keys of its records every
 * `heartbeatMs` and its own reaper (the handler's) closes idle sessions and deletes their records, as with the
 * in-memory store; when that instance dies, its records expire by themselves — the TTL replaces the dead instance's
 * reaper, and no record outlives its session by more than its TTL plus one heartbeat. Redis losing its data (a
 * restart without persistence) is seen by the loss of the key `P:ss:epoch`: each instance then writes the records
 * it holds again (it keeps a copy of each), so its sessions are counted and reaped again.
 *
 * Keys (`P` = the key prefix): `P:ss:r:<id>` (a hash: each record field as JSON text), `P:ss:st:<id>` (the session's
 * MCP state, JSON, when written: a string of its own keeps the hash compact), `P:ss:idx` (every id by last
 * activity), `P:ss:c:<caller>` (a caller's ids by last activity), `P:ss:exp` (ids by expiry, Redis clock),
 * `P:ss:who` (id → caller, to clean the indexes of expired records). `create`, `touch`, `delete` and `count` are one
 * Lua script each (one round trip, atomic); a scan reads 100 records a round trip.
 * @see MCP 2025-11-25 basic/transports.mdx "Session Management"
 */
import { MAX_TIMER_MS } from '@switchboard/jsonrpc';
import type { SessionActivity, SessionQuery, SessionRecord, SessionStore } from '@switchboard/mcp/stores';
import type { Redis } from 'ioredis';
import { DEFAULT_KEY_PREFIX, guarded, LuaScript } from './connection.js';
import { DEFAULT_STREAM_TTL_MS } from './redisEventStore.js';

/** Default of {@link RedisSessionStoreOptions.orphanTtlMs}: one hour. */
export const DEFAULT_ORPHAN_TTL_MS = 60 * 60 * 1000;
/** Default of {@link RedisSessionStoreOptions.heartbeatMs}: ten seconds. */
export const DEFAULT_SESSION_HEARTBEAT_MS = 10_000;

/** Options of {@link RedisSessionStore}. */
export interface RedisSessionStoreOptions {
  /** The connection (see `connectRedis`); the store does not close it. */
  readonly redis: Redis;
  /** Prefix of every key. @default 'switchboard:' */
  readonly keyPrefix?: string;
  /** How long (ms) a record whose `ttlMs` is `0` (never idle) outlives the instance that holds it. @default 3_600_000 (1 h) */
  readonly orphanTtlMs?: number;
  /** How often (ms) the records this instance created have their keys extended. @default 10_000 */
  readonly heartbeatMs?: number;
  /**
   * The heartbeat also extends the SSE history of each session it holds (the `RedisEventStore` keys of the same prefix)
   * to at least this long (ms) from now, so an idle stream stays resumable while its session lives.
   * @default 7_200_000 (2 h, the event store's `streamTtlMs` default)
   */
  readonly eventsTtlMs?: number;
}

const FIELDS = ['sessionId', 'transport', 'caller', 'createdAt', 'lastActivity', 'phase', 'ttlMs', 'streamPrefix', 'protocolVersion'] as const;

const COMMON = `
local p = ARGV[1]
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function forget(id)
  local who = redis.call('HGET', p .. 'ss:who', id)
  if who then redis.call('ZREM', p .. 'ss:c:' .. who, id) end
  redis.call('ZREM', p .. 'ss:idx', id)
  redis.call('ZREM', p .. 'ss:exp', id)
  redis.call('HDEL', p .. 'ss:who', id)
end
-- The store's epoch: a token set on first use; Redis losing its data (a restart without persistence) loses it too,
-- and the next writer sets a fresh one (ARGV[2]), which tells every instance to write its records again.
local function epoch()
  local current = redis.call('GET', p .. 'ss:epoch')
  if current then return current end
  redis.call('SET', p .. 'ss:epoch', ARGV[2])
  return ARGV[2]
end
-- Writes field/value pairs from ARGV[from]: the MCP state to its own string key (a value that large would turn the
-- whole hash from the compact listpack encoding into a hash table: twice the memory), the others to the hash.
local function writeFields(id, from)
  local plain = {}
  for i = from, #ARGV, 2 do
    if ARGV[i] == 'state' then redis.call('SET', p .. 'ss:st:' .. id, ARGV[i + 1])
    else plain[#plain + 1] = ARGV[i]; plain[#plain + 1] = ARGV[i + 1] end
  end
  if #plain > 0 then redis.call('HSET', p .. 'ss:r:' .. id, unpack(plain)) end
end
local function expire(id, ms)
  redis.call('PEXPIRE', p .. 'ss:st:' .. id, ms)
  return redis.call('PEXPIRE', p .. 'ss:r:' .. id, ms)
end
-- A record as field/value pairs, its MCP state last; {} when gone.
local function readRecord(id)
  local flat = redis.call('HGETALL', p .. 'ss:r:' .. id)
  if #flat == 0 then return flat end
  local st = redis.call('GET', p .. 'ss:st:' .. id)
  if st then flat[#flat + 1] = 'state'; flat[#flat + 1] = st end
  return flat
end
local function purge()
  local gone = redis.call('ZRANGEBYSCORE', p .. 'ss:exp', '-inf', now(), 'LIMIT', 0, 1000)
  for _, id in ipairs(gone) do
    local left = redis.call('PTTL', p .. 'ss:r:' .. id)
    if left > 0 then redis.call('ZADD', p .. 'ss:exp', now() + left, id) else forget(id) end
  end
end
`;

/** ARGV: prefix, fresh epoch, id, caller ('' = none), hasCaller, lastActivity, expireMs, field, value, … → the epoch. */
const CREATE = new LuaScript(`${COMMON}
local id, caller, hasCaller, at, ms = ARGV[3], ARGV[4], ARGV[5] == '1', tonumber(ARGV[6]), tonumber(ARGV[7])
local key = p .. 'ss:r:' .. id
forget(id)
redis.call('DEL', key, p .. 'ss:st:' .. id)
writeFields(id, 8)
expire(id, ms)
redis.call('ZADD', p .. 'ss:idx', at, id)
redis.call('ZADD', p .. 'ss:exp', now() + ms, id)
if hasCaller then
  redis.call('ZADD', p .. 'ss:c:' .. caller, at, id)
  redis.call('HSET', p .. 'ss:who', id, caller)
end
return epoch()
`);

/**
 * ARGV: prefix, fresh epoch, id, lastActivity, orphanMs, field, value, … → { found (1/0), epoch }.
 *
 * A request's touch (only `lastActivity` written: ARGV[8] absent) is the hot path of every session request, and each
 * `redis.call` costs Redis about a microsecond: it reads the record's `ttlMs` and caller with one HMGET (no `ttlMs`:
 * the record is gone), writes `lastActivity`, and extends the keys' expiry (both keys and `ss:exp`, which always
 * move together) only when that gains at least a second (PTTL), so a busy session's requests within one second
 * extend it once. Any other write (a phase, a TTL, the MCP state) extends them every time.
 */
const TOUCH = new LuaScript(`${COMMON}
local id, at = ARGV[3], tonumber(ARGV[4])
local key = p .. 'ss:r:' .. id
local got = redis.call('HMGET', key, 'ttlMs', 'caller')
if not got[1] then return { 0, epoch() } end
local function lifetime(ttl)
  ttl = tonumber(ttl)
  return ttl > 0 and ttl or tonumber(ARGV[5])
end
if ARGV[8] == nil then
  redis.call('HSET', key, ARGV[6], ARGV[7])
  local ms = lifetime(got[1])
  local left = redis.call('PTTL', key)
  if left > ms or ms - left >= 1000 then
    expire(id, ms)
    redis.call('ZADD', p .. 'ss:exp', now() + ms, id)
  end
else
  writeFields(id, 6)
  -- The TTL as just written, when this touch wrote one.
  local ms = lifetime(redis.call('HGET', key, 'ttlMs'))
  expire(id, ms)
  redis.call('ZADD', p .. 'ss:exp', now() + ms, id)
end
redis.call('ZADD', p .. 'ss:idx', 'XX', at, id)
-- The record's caller (JSON text: a string, or null), the same as its ss:who entry.
local caller = got[2] and cjson.decode(got[2])
if type(caller) == 'string' then redis.call('ZADD', p .. 'ss:c:' .. caller, 'XX', at, id) end
return { 1, epoch() }
`);

/** ARGV: prefix, id → the record as field/value pairs (its MCP state last), {} when gone. */
const READ = new LuaScript(`${COMMON}
return readRecord(ARGV[2])
`);

/** ARGV: prefix, id. */
const DELETE = new LuaScript(`${COMMON}
forget(ARGV[2])
redis.call('DEL', p .. 'ss:r:' .. ARGV[2], p .. 'ss:st:' .. ARGV[2])
return 1
`);

/** ARGV: prefix, caller ('' with hasCaller 0 = all), hasCaller → the count, expired records left out. */
const COUNT = new LuaScript(`${COMMON}
purge()
if ARGV[3] == '1' then return redis.call('ZCARD', p .. 'ss:c:' .. ARGV[2]) end
return redis.call('ZCARD', p .. 'ss:idx')
`);

/** ARGV: prefix, caller, hasCaller, start, count → flat list of HGETALL replies (empty for gone records) and ids. */
const PAGE = new LuaScript(`${COMMON}
if ARGV[4] == '0' then purge() end
local index = ARGV[3] == '1' and (p .. 'ss:c:' .. ARGV[2]) or (p .. 'ss:idx')
local ids = redis.call('ZRANGE', index, tonumber(ARGV[4]), tonumber(ARGV[4]) + tonumber(ARGV[5]) - 1)
local out = {}
for i, id in ipairs(ids) do out[i] = readRecord(id) end
return out
`);

/**
 * ARGV: prefix, fresh epoch, eventsMs, then id, expireMs, stream token ('' = none) triples → { epoch, the ids whose
 * record is gone … }. A live session's SSE history (the `RedisEventStore` keys of its stream token, same prefix) is
 * extended too, to at least eventsMs from now: an idle stream's history lives as long as its session.
 */
const HEARTBEAT = new LuaScript(`${COMMON}
local gone = { epoch() }
local eventsMs = tonumber(ARGV[3])
for i = 4, #ARGV, 3 do
  local id, ms, token = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2]
  if expire(id, ms) == 1 then
    redis.call('ZADD', p .. 'ss:exp', now() + ms, id)
    if token ~= '' then
      local streams = p .. 'ev:o:' .. token
      if redis.call('PEXPIRE', streams, eventsMs, 'GT') == 1 or redis.call('PTTL', streams) > 0 then
        redis.call('PEXPIRE', p .. 'ev:b:' .. token, eventsMs, 'GT')
        for _, stream in ipairs(redis.call('ZRANGE', streams, 0, -1)) do redis.call('PEXPIRE', p .. 'ev:s:' .. stream, eventsMs, 'GT') end
      end
    end
  else
    gone[#gone + 1] = id
  end
end
return gone
`);

/** This process's part of the epoch tokens it offers: random, so two processes never offer the same token. */
const EPOCH_ORIGIN = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}-`;
let epochsOffered = 0;

/**
 * A new epoch token, offered with every script that may set one (used only when the store has none: first use, or
 * after Redis lost its data). Unique per call (a counter): a process that set the store's epoch and sees it lost
 * must get a different one, or it would not notice the loss. A counter, not `Math.random`: it is built on every
 * session request.
 */
function freshEpoch(): string {
  return EPOCH_ORIGIN + (epochsOffered++).toString(36);
}

/** A held record, updated in place by each touch (a copy per request cost as much as the rest of the touch). */
type HeldRecord = { -readonly [K in keyof SessionRecord]: SessionRecord[K] };

const SCAN_PAGE = 100;
const HEARTBEAT_BATCH = 500;

function positive(name: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`Invalid ${name}: expected a positive integer, got ${String(n)}`);
  return n;
}

function toRecord(flat: readonly string[]): SessionRecord | undefined {
  if (flat.length === 0) return undefined;
  const fields: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = JSON.parse(flat[i + 1]!);
  const record = Object.fromEntries(FIELDS.map((name) => [name, fields[name] ?? null])) as Record<string, unknown>;
  // The MCP state (a cluster's) and the opener (who may be served the session elsewhere): kept as given, absent when
  // never written.
  if (fields.state !== undefined) record.state = fields.state;
  if (fields.opener !== undefined) record.opener = fields.opener;
  return record as unknown as SessionRecord;
}

/**
 * A {@link SessionStore} in Redis, shared by every instance (see the file's description for expiry and keys). Its
 * methods reject with a `RedisStoreError` while Redis is unreachable (or full, with `noeviction`): the HTTP handler
 * then refuses new sessions and DELETEs (HTTP 503, `Retry-After: 1`) and logs failed touches, and the sessions it
 * serves go on. When Redis comes back without its data (a
 * restart without persistence: the store's epoch key is gone), the store writes the records it holds again at its
 * next touch or heartbeat. Call {@link close} to stop the heartbeat.
 * @example
 * const sessionStore = new RedisSessionStore({ redis: connectRedis({ url }) });
 */
export class RedisSessionStore implements SessionStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #orphanMs: number;
  readonly #eventsMs: number;
  /** The records this instance created and has not deleted, as last written (written again if Redis lost them). */
  readonly #held = new Map<string, HeldRecord>();
  /** The store's epoch as this instance last saw it (see the `epoch()` of the scripts). */
  #epoch: string | undefined;
  #recovering: Promise<void> | undefined;
  #heartbeat: ReturnType<typeof setInterval> | undefined;

  /** @throws RangeError when `orphanTtlMs` or `heartbeatMs` is not a positive integer */
  constructor(options: RedisSessionStoreOptions) {
    this.#redis = options.redis;
    this.#prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.#orphanMs = positive('orphanTtlMs', options.orphanTtlMs, DEFAULT_ORPHAN_TTL_MS);
    this.#eventsMs = positive('eventsTtlMs', options.eventsTtlMs, DEFAULT_STREAM_TTL_MS);
    const every = positive('heartbeatMs', options.heartbeatMs, DEFAULT_SESSION_HEARTBEAT_MS);
    // A timer's delay: past 2^31 - 1 ms setInterval would beat every millisecond.
    if (every > MAX_TIMER_MS) throw new RangeError(`Invalid heartbeatMs: expected at most ${MAX_TIMER_MS} ms, got ${String(every)}`);
    this.#heartbeat = setInterval(() => void this.#beat().catch(() => undefined), every);
    (this.#heartbeat as { unref?: () => void }).unref?.();
  }

  #lifetime(ttlMs: number): number {
    return ttlMs > 0 ? ttlMs : this.#orphanMs;
  }

  create(record: SessionRecord): Promise<void> {
    return guarded(this.#redis, 'RedisSessionStore.create', async () => {
      const epoch = await this.#write(record);
      // Held once written: a refused admission (the write failed) leaves nothing to write again later.
      this.#held.set(record.sessionId, { ...record });
      this.#saw(epoch);
    });
  }

  /** Writes a whole record; resolves with the store's epoch. */
  async #write(record: SessionRecord): Promise<string> {
    const pairs = FIELDS.flatMap((name) => [name, JSON.stringify(record[name])]);
    if (record.state !== undefined) pairs.push('state', JSON.stringify(record.state));
    if (record.opener !== undefined) pairs.push('opener', JSON.stringify(record.opener));
    const args = [this.#prefix, freshEpoch(), record.sessionId, record.caller ?? '', record.caller === null ? '0' : '1', record.lastActivity, this.#lifetime(record.ttlMs), ...pairs];
    return (await CREATE.run(this.#redis, args)) as string;
  }

  /** Notes the epoch a script returned; when it changed, Redis lost its data: the held records are written again. */
  #saw(epoch: string): void {
    const before = this.#epoch;
    this.#epoch = epoch;
    if (before === undefined || before === epoch || this.#recovering !== undefined) return;
    this.#recovering = (async () => {
      for (const record of [...this.#held.values()]) {
        // Deleted meanwhile: not written again.
        if (this.#held.get(record.sessionId) !== undefined) await this.#write(this.#held.get(record.sessionId)!);
      }
    })()
      .catch(() => {
        // Redis failed again: the next touch or heartbeat that sees a new epoch tries again.
        this.#epoch = undefined;
      })
      .finally(() => {
        this.#recovering = undefined;
      });
  }

  get(sessionId: string): Promise<SessionRecord | undefined> {
    return guarded(this.#redis, 'RedisSessionStore.get', async () => toRecord((await READ.run(this.#redis, [this.#prefix, sessionId])) as string[]));
  }

  /**
   * One Lua script (one round trip): resolves `false` when the record is gone (deleted by an instance, or expired),
   * `true` when it was touched, or when Redis lost it (a restart without its data: the record is written again).
   */
  touch(sessionId: string, activity: SessionActivity): Promise<boolean> {
    return guarded(this.#redis, 'RedisSessionStore.touch', async () => {
      // The script's ARGV; a request's touch is these seven alone (see TOUCH). `at` is a finite number: its JSON is
      // its decimal text.
      const at = String(activity.at);
      const args = [this.#prefix, freshEpoch(), sessionId, at, String(this.#orphanMs), 'lastActivity', at];
      if (activity.phase !== undefined) args.push('phase', JSON.stringify(activity.phase));
      if (activity.ttlMs !== undefined) args.push('ttlMs', JSON.stringify(activity.ttlMs));
      if (activity.protocolVersion !== undefined) args.push('protocolVersion', JSON.stringify(activity.protocolVersion));
      if (activity.state !== undefined) args.push('state', JSON.stringify(activity.state));
      const held = this.#held.get(sessionId);
      if (held !== undefined) {
        held.lastActivity = activity.at;
        if (activity.phase !== undefined) held.phase = activity.phase;
        if (activity.ttlMs !== undefined) held.ttlMs = activity.ttlMs;
        if (activity.protocolVersion !== undefined) held.protocolVersion = activity.protocolVersion;
        if (activity.state !== undefined) held.state = activity.state;
      }
      const before = this.#epoch;
      const [found, epoch] = (await TOUCH.run(this.#redis, args)) as [number, string];
      // Gone with the same epoch: deleted (by another instance) or expired; with a new one, Redis lost it: kept.
      const gone = found === 0 && (before === undefined || before === epoch);
      if (gone) this.#held.delete(sessionId);
      this.#saw(epoch);
      return !gone;
    });
  }

  delete(sessionId: string): Promise<void> {
    this.#held.delete(sessionId);
    return guarded(this.#redis, 'RedisSessionStore.delete', async () => {
      await DELETE.run(this.#redis, [this.#prefix, sessionId]);
    });
  }

  count(query?: SessionQuery): Promise<number> {
    return guarded(this.#redis, 'RedisSessionStore.count', async () => (await COUNT.run(this.#redis, [this.#prefix, query?.caller ?? '', query?.caller === undefined ? '0' : '1'])) as number);
  }

  scan(visit: (record: SessionRecord) => boolean | void, query?: SessionQuery): Promise<void> {
    return guarded(this.#redis, 'RedisSessionStore.scan', async () => {
      const caller = query?.caller;
      const seen = new Set<string>();
      for (let start = 0; ; start += SCAN_PAGE) {
        const page = (await PAGE.run(this.#redis, [this.#prefix, caller ?? '', caller === undefined ? '0' : '1', start, SCAN_PAGE])) as string[][];
        for (const flat of page) {
          const record = toRecord(flat);
          if (record === undefined || seen.has(record.sessionId)) continue;
          seen.add(record.sessionId);
          if (visit(record) === false) return;
        }
        if (page.length < SCAN_PAGE) return;
      }
    });
  }

  /** Records this instance created and still extends (see the file's description). */
  get held(): number {
    return this.#held.size;
  }

  /** Extends the keys of the records this instance holds; forgets those whose record is gone. */
  async #beat(): Promise<void> {
    const entries = [...this.#held.values()];
    for (let i = 0; i < entries.length; i += HEARTBEAT_BATCH) {
      const args: (string | number)[] = [this.#prefix, freshEpoch(), this.#eventsMs];
      for (const record of entries.slice(i, i + HEARTBEAT_BATCH)) args.push(record.sessionId, this.#lifetime(record.ttlMs), record.streamPrefix?.replace(/\.$/, '') ?? '');
      const before = this.#epoch;
      const [epoch, ...gone] = (await HEARTBEAT.run(this.#redis, args)) as [string, ...string[]];
      if (before === undefined || before === epoch) for (const id of gone) this.#held.delete(id);
      this.#saw(epoch);
    }
  }

  /** Stops the heartbeat (the records this instance holds then expire by their TTL). The connection stays open. */
  close(): void {
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }
}
