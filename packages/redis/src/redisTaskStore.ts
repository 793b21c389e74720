/**
 * `RedisTaskStore`: tasks in one Redis, so a task started on one instance is read, updated, listed and cancelled
 * through any other, and its result outlives the instance that ran it (until its TTL).
 *
 * A task is a hash of two JSON texts — `base` (id, creation time, TTL, poll interval, owner, caller, runner: never changed)
 * and `state` (status, message, result, error, input requests, update time: replaced whole by every update) — plus
 * its `status`, whose key expires `ttlMs` after creation. JSON is never decoded or re-encoded in Lua (whose number
 * formatting would round a result's numbers). Bounds as `InMemoryTaskStore`'s in count: a caller past
 * `maxTasksPerCaller` gives up its own oldest finished task, and past `maxTasks` the oldest finished task of any
 * caller goes (the in-memory store picks it from the caller holding most); a live task is never evicted. Bytes: a
 * result larger than `maxStoredBytesPerCaller` is not kept (the task fails with why, as in memory); the byte totals
 * are left to Redis's `maxmemory`.
 *
 * Keys (`P` = the key prefix): `P:tk:t:<id>` (the task), `P:tk:seq` (creation counter: list order and cursors),
 * `P:tk:all`, `P:tk:o:<owner>`, `P:tk:c:<caller>` (ids by creation), `P:tk:fin`, `P:tk:fin:<caller>` (finished ids),
 * `P:tk:exp` (ids by expiry), `P:tk:who` (id → owner and caller, to clean the indexes).
 * @see MCP 2025-11-25 basic/utilities/tasks.mdx; the 2026-07-28 extension `io.modelcontextprotocol/tasks`
 */
import { DEFAULT_MAX_STORED_TASK_BYTES_PER_CALLER, DEFAULT_MAX_STORED_TASKS, DEFAULT_MAX_STORED_TASKS_PER_CALLER, isFinalTaskStatus, type NewTask, type TaskPage, type TaskRecord, type TaskStore, type TaskUpdate } from '@switchboard/mcp/stores';
import type { Redis } from 'ioredis';
import { DEFAULT_KEY_PREFIX, guarded, LuaScript } from './connection.js';

/** Options of {@link RedisTaskStore}. */
export interface RedisTaskStoreOptions {
  /** The connection (see `connectRedis`); the store does not close it. */
  readonly redis: Redis;
  /** Prefix of every key. @default 'switchboard:' */
  readonly keyPrefix?: string;
  /** Tasks kept at most, all callers; past it the oldest finished task goes. @default 10_000 */
  readonly maxTasks?: number;
  /** Tasks one caller keeps at most; past it that caller's own oldest finished task goes. @default 1000 */
  readonly maxTasksPerCaller?: number;
  /** The largest result (length of its JSON text) a task keeps; a larger one fails the task. @default 16 MiB */
  readonly maxStoredBytesPerCaller?: number;
}

const COMMON = `
local p = ARGV[1]
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function drop(id)
  local who = redis.call('HGET', p .. 'tk:who', id)
  if who then
    local sep = string.find(who, '\\n', 1, true)
    local owner, caller = string.sub(who, 1, sep - 1), string.sub(who, sep + 1)
    if owner ~= '' then redis.call('ZREM', p .. 'tk:o:' .. string.sub(owner, 2), id) end
    redis.call('ZREM', p .. 'tk:c:' .. caller, id)
    redis.call('ZREM', p .. 'tk:fin:' .. caller, id)
  end
  redis.call('DEL', p .. 'tk:t:' .. id)
  for _, k in ipairs({ 'all', 'fin', 'exp' }) do redis.call('ZREM', p .. 'tk:' .. k, id) end
  redis.call('HDEL', p .. 'tk:who', id)
end
local function purge()
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', p .. 'tk:exp', '-inf', now(), 'LIMIT', 0, 500)) do drop(id) end
end
local function evictOldest(finished, keep)
  local ids = redis.call('ZRANGE', finished, 0, 1)
  local victim = ids[1] == keep and ids[2] or ids[1]
  if victim == nil or victim == false then return false end
  drop(victim)
  return true
end
local function enforce(caller, keep, maxTasks, maxPer)
  if caller ~= '' then
    while redis.call('ZCARD', p .. 'tk:c:' .. caller) > maxPer do
      if not evictOldest(p .. 'tk:fin:' .. caller, keep) then break end
    end
  end
  while redis.call('ZCARD', p .. 'tk:all') > maxTasks do
    if not evictOldest(p .. 'tk:fin', keep) then break end
  end
end
`;

/** ARGV: prefix, id, base, state, ttlMs, owner ('' none, else '=' .. owner), caller, maxTasks, maxPer → seq, or 0 when it exists. */
const CREATE = new LuaScript(`${COMMON}
local id, ttl, owner, caller = ARGV[2], tonumber(ARGV[5]), ARGV[6], ARGV[7]
local key = p .. 'tk:t:' .. id
if redis.call('EXISTS', key) == 1 then return 0 end
purge()
drop(id)
local seq = redis.call('INCR', p .. 'tk:seq')
redis.call('HSET', key, 'base', ARGV[3], 'state', ARGV[4], 'status', 'working')
redis.call('PEXPIRE', key, ttl)
redis.call('ZADD', p .. 'tk:all', seq, id)
if owner ~= '' then redis.call('ZADD', p .. 'tk:o:' .. string.sub(owner, 2), seq, id) end
redis.call('ZADD', p .. 'tk:c:' .. caller, seq, id)
redis.call('ZADD', p .. 'tk:exp', now() + ttl, id)
redis.call('HSET', p .. 'tk:who', id, owner .. '\\n' .. caller)
enforce(caller, id, tonumber(ARGV[8]), tonumber(ARGV[9]))
return seq
`);

/** ARGV: prefix, id, state, status, final ('1'/'0'), maxTasks, maxPer → {base} | {} unknown | {false, status} final. */
const UPDATE = new LuaScript(`${COMMON}
local id, state, status = ARGV[2], ARGV[3], ARGV[4]
local key = p .. 'tk:t:' .. id
local current = redis.call('HGET', key, 'status')
if not current then return {} end
if current == 'completed' or current == 'failed' or current == 'cancelled' then return { 0, current } end
redis.call('HSET', key, 'state', state, 'status', status)
local base = redis.call('HGET', key, 'base')
if ARGV[5] == '1' then
  local seq = redis.call('ZSCORE', p .. 'tk:all', id) or '0'
  local who = redis.call('HGET', p .. 'tk:who', id) or '\\n'
  local caller = string.sub(who, string.find(who, '\\n', 1, true) + 1)
  redis.call('ZADD', p .. 'tk:fin', seq, id)
  redis.call('ZADD', p .. 'tk:fin:' .. caller, seq, id)
  enforce(caller, id, tonumber(ARGV[6]), tonumber(ARGV[7]))
end
return { 1, base }
`);

/** ARGV: prefix, owner ('' all, else '=' .. owner), after, limit → {-1} bad cursor | flat seq, base, state … */
const LIST = new LuaScript(`${COMMON}
local owner, after, limit = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
if after > tonumber(redis.call('GET', p .. 'tk:seq') or '0') then return { -1 } end
purge()
local index = owner == '' and (p .. 'tk:all') or (p .. 'tk:o:' .. string.sub(owner, 2))
local out = {}
local found = 0
local from = '(' .. ARGV[3]
while found <= limit do
  local batch = redis.call('ZRANGEBYSCORE', index, from, '+inf', 'WITHSCORES', 'LIMIT', 0, 100)
  if #batch == 0 then break end
  for i = 1, #batch, 2 do
    local parts = redis.call('HMGET', p .. 'tk:t:' .. batch[i], 'base', 'state')
    from = '(' .. batch[i + 1]
    if parts[1] then
      found = found + 1
      if found > limit then break end
      out[#out + 1] = batch[i + 1]; out[#out + 1] = parts[1]; out[#out + 1] = parts[2]
    end
  end
end
if found > limit then out[#out + 1] = 'more' end
return out
`);

/** ARGV: prefix, id → 1 when it was stored. */
const DELETE = new LuaScript(`${COMMON}
local existed = redis.call('EXISTS', p .. 'tk:t:' .. ARGV[2])
drop(ARGV[2])
return existed
`);

interface Base {
  readonly taskId: string;
  readonly createdAtMs: number;
  readonly ttlMs: number;
  readonly pollIntervalMs?: number;
  readonly owner?: string;
  readonly caller?: string;
  readonly runner?: string;
}

type State = TaskUpdate & { readonly updatedAtMs: number };

function compose(base: Base, state: State): TaskRecord {
  const { taskId, createdAtMs, ttlMs, pollIntervalMs, owner, caller, runner } = base;
  return {
    taskId,
    status: state.status,
    ...(state.statusMessage === undefined ? {} : { statusMessage: state.statusMessage }),
    ...(state.result === undefined ? {} : { result: state.result }),
    ...(state.error === undefined ? {} : { error: state.error }),
    ...(state.inputRequests === undefined ? {} : { inputRequests: state.inputRequests }),
    createdAtMs,
    updatedAtMs: state.updatedAtMs,
    ttlMs,
    ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
    ...(owner === undefined ? {} : { owner }),
    ...(caller === undefined ? {} : { caller }),
    ...(runner === undefined ? {} : { runner }),
  };
}

function positive(name: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`Invalid ${name}: expected a positive integer, got ${String(n)}`);
  return n;
}

/** The length of a state's JSON text parts, as the in-memory store measures it. */
function stateBytes(update: TaskUpdate): number {
  let bytes = update.statusMessage?.length ?? 0;
  for (const part of [update.result, update.error, update.inputRequests]) {
    if (part === undefined) continue;
    try {
      bytes += JSON.stringify(part)?.length ?? 0;
    } catch {
      return Number.MAX_SAFE_INTEGER;
    }
  }
  return bytes;
}

/**
 * A {@link TaskStore} in Redis, shared by every instance (see the file's description for bounds and keys). Its
 * methods reject with a `RedisStoreError` while Redis is unreachable, and with the `TypeError`s of the interface.
 * @example
 * const taskStore = new RedisTaskStore({ redis: connectRedis({ url }) });
 */
export class RedisTaskStore implements TaskStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #maxTasks: number;
  readonly #maxPerCaller: number;
  readonly #maxResultBytes: number;

  /** @throws RangeError when a bound is not a positive integer */
  constructor(options: RedisTaskStoreOptions) {
    this.#redis = options.redis;
    this.#prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.#maxTasks = positive('maxTasks', options.maxTasks, DEFAULT_MAX_STORED_TASKS);
    this.#maxPerCaller = positive('maxTasksPerCaller', options.maxTasksPerCaller, DEFAULT_MAX_STORED_TASKS_PER_CALLER);
    this.#maxResultBytes = positive('maxStoredBytesPerCaller', options.maxStoredBytesPerCaller, DEFAULT_MAX_STORED_TASK_BYTES_PER_CALLER);
  }

  create(task: NewTask): Promise<TaskRecord> {
    return guarded(this.#redis, 'RedisTaskStore.create', async () => {
      if (!(typeof task.ttlMs === 'number' && task.ttlMs > 0)) throw new TypeError(`Invalid task TTL: expected a positive number of milliseconds, got "${String(task.ttlMs)}"`);
      const now = Date.now();
      const base: Base = {
        taskId: task.taskId,
        createdAtMs: now,
        ttlMs: task.ttlMs,
        ...(task.pollIntervalMs === undefined ? {} : { pollIntervalMs: task.pollIntervalMs }),
        ...(task.owner === undefined ? {} : { owner: task.owner }),
        ...(task.caller === undefined ? {} : { caller: task.caller }),
        ...(task.runner === undefined ? {} : { runner: task.runner }),
      };
      const state: State = { status: 'working', updatedAtMs: now };
      const owner = task.owner === undefined ? '' : `=${task.owner}`;
      const seq = await CREATE.run(this.#redis, [this.#prefix, task.taskId, JSON.stringify(base), JSON.stringify(state), Math.ceil(task.ttlMs), owner, task.caller ?? '', this.#maxTasks, this.#maxPerCaller]);
      if (seq === 0) throw new TypeError(`Task already exists: "${task.taskId}"`);
      return compose(base, state);
    });
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    return guarded(this.#redis, 'RedisTaskStore.get', async () => {
      const [base, state] = await this.#redis.hmget(`${this.#prefix}tk:t:${taskId}`, 'base', 'state');
      return typeof base !== 'string' || typeof state !== 'string' ? undefined : compose(JSON.parse(base) as Base, JSON.parse(state) as State);
    });
  }

  update(taskId: string, requested: TaskUpdate): Promise<TaskRecord | undefined> {
    return guarded(this.#redis, 'RedisTaskStore.update', async () => {
      let update = requested;
      const bytes = stateBytes(update);
      if (bytes > this.#maxResultBytes && isFinalTaskStatus(update.status)) {
        // Not kept, as in memory: the task fails with why.
        const message = 'Task result too large to keep';
        update = { status: 'failed', statusMessage: message, error: { code: -32603, message, data: { resultBytes: bytes, maxResultBytes: this.#maxResultBytes } } };
      }
      const state: State = {
        status: update.status,
        ...(update.statusMessage === undefined ? {} : { statusMessage: update.statusMessage }),
        ...(update.result === undefined ? {} : { result: update.result }),
        ...(update.error === undefined ? {} : { error: update.error }),
        ...(update.inputRequests === undefined ? {} : { inputRequests: update.inputRequests }),
        updatedAtMs: Date.now(),
      };
      const reply = (await UPDATE.run(this.#redis, [this.#prefix, taskId, JSON.stringify(state), state.status, isFinalTaskStatus(state.status) ? '1' : '0', this.#maxTasks, this.#maxPerCaller])) as [number, string] | [];
      if (reply.length === 0) return undefined;
      if (reply[0] === 0) throw new TypeError(`Task is already final: "${taskId}" is "${reply[1]}"`);
      return compose(JSON.parse(reply[1]) as Base, state);
    });
  }

  list(options: { readonly owner?: string; readonly cursor?: string; readonly limit?: number } = {}): Promise<TaskPage> {
    return guarded(this.#redis, 'RedisTaskStore.list', async () => {
      const { owner, cursor, limit } = options;
      let after = 0;
      if (cursor !== undefined) {
        after = typeof cursor === 'string' && /^[1-9][0-9]{0,15}$/.test(cursor) ? Number(cursor) : NaN;
        if (Number.isNaN(after)) throw new TypeError(`Invalid task cursor: "${String(cursor).slice(0, 200)}"`);
      }
      const max = limit === undefined || !(limit >= 0) ? Number.MAX_SAFE_INTEGER : Math.floor(limit);
      const reply = (await LIST.run(this.#redis, [this.#prefix, owner === undefined ? '' : `=${owner}`, after, max])) as (string | number)[];
      if (reply[0] === -1) throw new TypeError(`Invalid task cursor: "${String(cursor).slice(0, 200)}"`);
      const more = reply.at(-1) === 'more';
      const tasks: TaskRecord[] = [];
      let last = '';
      for (let i = 0; i + 2 < reply.length; i += 3) {
        last = String(reply[i]);
        tasks.push(compose(JSON.parse(String(reply[i + 1])) as Base, JSON.parse(String(reply[i + 2])) as State));
      }
      return more ? { tasks, nextCursor: last } : { tasks };
    });
  }

  delete(taskId: string): Promise<boolean> {
    return guarded(this.#redis, 'RedisTaskStore.delete', async () => (await DELETE.run(this.#redis, [this.#prefix, taskId])) === 1);
  }
}
