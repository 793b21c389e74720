/**
 * A cluster's session store failing at the moments a session begins or ends (two instances on one real
 * `redis-server`, each request sent by the test to the instance it names):
 * - a DELETE while Redis does not answer (the server stopped with SIGSTOP) is 503 + `Retry-After` with a JSON-RPC
 *   error, and the session lives on on both instances; once Redis answers again, a retried DELETE ends it, and its
 *   id is 404 on both (MCP 2025-11-25 basic/transports.mdx "Session Management" item 5);
 * - an `initialize` while Redis refuses writes (`maxmemory 1`, `noeviction`: the session's state cannot be stored)
 *   is refused 503 + `Retry-After` with no `Mcp-Session-Id`, never a session only one instance could serve; once
 *   Redis takes writes again, a new session is served on both;
 * - a record that holds no state yet (its handshake under way elsewhere, or its state write failed there) is 503 +
 *   `Retry-After` on an instance that does not hold it, not 404.
 * Every wait is bounded (Redis commands time out after 300 ms); Redis is resumed and its memory limit restored in
 * `finally`. Without redis-server the suite skips with one line naming the package.
 */
import { describe, expect, it } from 'vitest';
import { useTwoRedisInstances, type RedisInstance, type RedisInstanceOptions } from './helpers/redisInstances.js';
import { INSTALL_REDIS, REDIS_SERVER } from './helpers/redisServer.js';

const REVISION = '2025-11-25';

/** Each instance: `whoami`, on stores whose commands fail within 300 ms when Redis does not answer. */
const INSTANCES: RedisInstanceOptions = {
  keyPrefix: 'fail:',
  // Short command timeouts: a stopped Redis fails each command within 300 ms (not the default 5 s).
  stores: { commandTimeoutMs: 300, maxRetriesPerRequest: 0 },
  tools(server, name) {
    server.tool('whoami', {}, () => ({ content: [{ type: 'text', text: name }] }));
  },
};

function headers(session?: string): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': REVISION, ...(session === undefined ? {} : { 'mcp-session-id': session }) };
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'c', version: '1' } } });

async function open(url: string): Promise<string> {
  const init = await fetch(url, { method: 'POST', headers: headers(), body: INITIALIZE });
  expect(init.status).toBe(200);
  await init.text();
  const session = init.headers.get('mcp-session-id') as string;
  await (await fetch(url, { method: 'POST', headers: headers(session), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
  return session;
}

/** `whoami` on `on` for `session`: the HTTP status and the JSON body. */
async function whoami(on: RedisInstance, session: string, id: number): Promise<{ status: number; body: any }> {
  const response = await fetch(on.url, { method: 'POST', headers: headers(session), body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'whoami', arguments: {} } }) });
  return { status: response.status, body: await response.json() };
}

describe.skipIf(REDIS_SERVER === undefined)('a cluster whose Redis fails as a session begins or ends', () => {
  const two = useTwoRedisInstances({
    ...INSTANCES,
    beforeStop(redis) {
      // A test that stopped Redis (SIGSTOP) resumes it in its finally; this is the backstop.
      if (redis.child.pid !== undefined) process.kill(redis.child.pid, 'SIGCONT');
    },
  });

  it('a DELETE while Redis does not answer is 503 and ends nothing; retried once it answers, it ends the session everywhere', async () => {
    const session = await open(two.a.url);
    expect(await whoami(two.b, session, 1)).toMatchObject({ status: 200, body: { id: 1, result: { content: [{ text: 'B' }] } } });
    const pid = two.redis.child.pid!;
    let refused: Response;
    process.kill(pid, 'SIGSTOP');
    try {
      refused = await fetch(two.a.url, { method: 'DELETE', headers: headers(session), signal: AbortSignal.timeout(10_000) });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    // A JSON-RPC error with no id member: a DELETE carries no request (the project's field bug B45).
    const body = await refused.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.stringMatching(/session store/) } });
    expect(body).not.toHaveProperty('id');
    // Nothing ended: both instances serve the session.
    expect(await whoami(two.a, session, 2)).toMatchObject({ status: 200, body: { id: 2, result: { content: [{ text: 'A' }] } } });
    expect(await whoami(two.b, session, 3)).toMatchObject({ status: 200, body: { id: 3, result: { content: [{ text: 'B' }] } } });
    const deleted = await fetch(two.a.url, { method: 'DELETE', headers: headers(session) });
    expect(deleted.status).toBe(200);
    await deleted.text();
    expect(await whoami(two.a, session, 4)).toMatchObject({ status: 404, body: { id: 4, error: { code: -32001 } } });
    expect(await whoami(two.b, session, 5)).toMatchObject({ status: 404, body: { id: 5, error: { code: -32001 } } });
  });

  it('an initialize while Redis refuses writes is 503 with no session; once Redis takes writes, sessions cross instances again', async () => {
    const admin = two.a.stores.redis;
    let refused: Response;
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await admin.config('SET', 'maxmemory', '1');
    try {
      refused = await fetch(two.a.url, { method: 'POST', headers: headers(), body: INITIALIZE, signal: AbortSignal.timeout(10_000) });
    } finally {
      await admin.config('SET', 'maxmemory', '0');
    }
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('mcp-session-id')).toBeNull();
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', id: 0, error: { message: expect.stringMatching(/session store/) } });
    const session = await open(two.a.url);
    expect(await whoami(two.b, session, 1)).toMatchObject({ status: 200, body: { id: 1, result: { content: [{ text: 'B' }] } } });
  });

  it('a record that holds no state yet is 503 + Retry-After on an instance that does not hold it, not 404', async () => {
    const now = Date.now();
    // What a session whose state write failed on the instance that holds it leaves in the store.
    await two.a.stores.httpOptions.sessionStore.create({
      sessionId: 'unsettled-1',
      transport: 'streamable-http',
      caller: null,
      createdAt: now,
      lastActivity: now,
      phase: 'opened',
      ttlMs: 60_000,
      streamPrefix: 'p1.',
      protocolVersion: null,
    });
    const { status, body } = await whoami(two.b, 'unsettled-1', 1);
    expect(status).toBe(503);
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { message: expect.stringMatching(/session store/) } });
    // An id the store has no record of is still 404.
    expect((await whoami(two.b, 'never-opened', 2)).status).toBe(404);
  });
});

// Without redis-server the suite above is skipped, and this line says why.
if (REDIS_SERVER === undefined) it.skip(INSTALL_REDIS, () => {});
