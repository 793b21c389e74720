/**
 * A Redis restart under a cluster (`test/helpers/nginxCluster.ts`: three Switchboard instances on one real
 * `redis-server` behind a real nginx doing plain round-robin), through nginx's port only. `redis-server` is killed
 * with SIGKILL while the cluster is up. During the window: a new session is refused with 503 and `Retry-After`
 * (RFC 9110 §15.6.4, a temporary condition) and a JSON-RPC error carrying the `initialize` id (JSON-RPC 2.0 §5); a
 * request of a live session is served where a copy of the session is held and answered 503 + `Retry-After` where the
 * record cannot be read — never 404, which would tell the client its session is gone (MCP 2025-11-25
 * basic/transports.mdx "Session Management" item 4) —; a 2026-07-28 call that needs no store is served; one that
 * needs the task store fails with -32603 and its own id, with no internal text; no instance exits (same PIDs). Then
 * redis-server is started again on the same port, and within a bound the cluster serves both eras on every instance
 * again (new sessions, the old session, tasks) with no instance restarted; each instance logged the loss and the
 * recovery once.
 */
import { McpClient, streamableHttp } from '@switchboard/mcp/client';
import { describe, expect, it } from 'vitest';
import { NGINX_CLUSTER_MISSING, dataOf, eventually, running, taggedFetch, textOf, useNginxCluster } from './helpers/nginxCluster.js';
import { processRunning } from './helpers/process.js';

const NAMES = ['A', 'B', 'C'] as const;
const LEGACY = '2025-11-25';
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

const headers = (session?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': LEGACY,
  ...(session === undefined ? {} : { 'mcp-session-id': session }),
});

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly session: string | null;
  readonly messages: any[];
}

async function post(url: string, body: unknown, session?: string): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', headers: headers(session), body: JSON.stringify(body) });
  const text = await res.text();
  const messages = (res.headers.get('content-type') ?? '').startsWith('text/event-stream') ? dataOf(text) : text === '' ? [] : [JSON.parse(text)];
  return { status: res.status, retryAfter: res.headers.get('retry-after'), session: res.headers.get('mcp-session-id'), messages };
}

const initialize = (url: string, id = 0): Promise<Answer> =>
  post(url, { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'c', version: '1' } } });

async function open(url: string): Promise<string> {
  const init = await initialize(url);
  expect(init.status).toBe(200);
  const session = init.session!;
  expect((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
  return session;
}

const whoami = (url: string, id: number, session?: string): Promise<Answer> => post(url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, session);

function modernClient(url: string, tasks = false): Promise<McpClient> {
  return McpClient.connect({ connector: streamableHttp({ url, fetch: taggedFetch({ prefix: 'modern:' }) }), era: 'modern', logger: silent, reconnect: false, ...(tasks ? { capabilities: TASKS } : {}) });
}

describe.skipIf(NGINX_CLUSTER_MISSING !== undefined)('redis-server killed and restarted under three instances behind nginx', () => {
  const cluster = useNginxCluster({ names: NAMES });

  it('a clear error window while Redis is down, no instance crashes, both eras served again once it is back', async () => {
    const url = cluster.url;
    const pids = cluster.instances.map((one) => one.child.pid!);
    // Before: a session opened (initialize and initialized: copies on two instances), and a 2026-07-28 client.
    const session = await open(url);
    const modern = await modernClient(url);
    const tasks = await modernClient(url, true);
    try {
      expect(textOf(await modern.callTool({ name: 'whoami', arguments: {} }))).toMatch(/^[ABC]$/);

      const redisPid = cluster.redis.child.pid!;
      await cluster.redis.kill();
      expect(processRunning(redisPid)).toBe(false);
      const downAt = Date.now();

      // The session's requests, one on each instance in turn: served where a copy is held, else 503 + Retry-After.
      const during: Answer[] = [];
      for (let i = 0; i < 3; i++) during.push(await whoami(url, 10 + i, session));
      for (const [i, answer] of during.entries()) {
        if (answer.status === 200) expect(answer.messages).toEqual([{ jsonrpc: '2.0', id: 10 + i, result: { content: [{ type: 'text', text: expect.stringMatching(/^[ABC]$/) }] } }]);
        else {
          expect(answer.status).toBe(503);
          expect(answer.retryAfter).toMatch(/^\d+$/);
          expect(answer.messages).toEqual([{ jsonrpc: '2.0', id: 10 + i, error: { code: -32000, message: expect.stringMatching(/^Service Unavailable: /) } }]);
        }
      }
      const statuses = during.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(2); // the two instances holding a copy
      expect(statuses.filter((status) => status === 503)).toHaveLength(1); // the third cannot read the record
      // A new session: refused, 503 + Retry-After, with the initialize id; a 2026-07-28 call needing no store: served;
      // one needing the task store: -32603 with its id, no internal text.
      const [refused, stateless, task] = await Promise.all([
        initialize(url, 7),
        modern.callTool({ name: 'whoami', arguments: {} }).then(textOf),
        tasks.callToolAsTask({ name: 'job', arguments: { ms: 10 } }).then(() => undefined, (error: unknown) => error as { code?: number; message?: string }),
      ]);
      expect(refused.status).toBe(503);
      expect(refused.retryAfter).toMatch(/^\d+$/);
      expect(refused.messages).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: -32000, message: expect.stringMatching(/^Service Unavailable: /) } }]);
      expect(stateless).toMatch(/^[ABC]$/);
      expect(task).toMatchObject({ code: -32603, message: 'Internal error' });
      const windowMs = Date.now() - downAt;
      // No instance crashed: the same three processes run.
      expect(cluster.instances.every((one) => running(one.child) && processRunning(one.child.pid!))).toBe(true);

      await cluster.redis.restart();
      const upAt = Date.now();
      // Within a bound: a new session is admitted and served by every instance, the old session too (its record is
      // written again by an instance holding it), a task runs, and 2026-07-28 calls are served by every instance.
      const servedAgain = await eventually(async () => {
        const fresh = await initialize(url);
        if (fresh.status !== 200) return false;
        await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, fresh.session!);
        for (const id of [fresh.session!, session]) {
          const names = new Set<string>();
          for (let i = 0; i < 3; i++) {
            const answer = await whoami(url, 20 + i, id);
            if (answer.status !== 200) return false;
            names.add(textOf(answer.messages[0].result));
          }
          if (names.size !== 3) return false;
        }
        return true;
      }, 15_000);
      expect(servedAgain).toBe(true);
      const modernNames = new Set<string>();
      for (let i = 0; i < 3; i++) modernNames.add(textOf(await modern.callTool({ name: 'whoami', arguments: {} })));
      expect(modernNames).toEqual(new Set(NAMES));
      const job = await tasks.callToolAsTask({ name: 'job', arguments: { ms: 50 } }, { pollIntervalMs: 100 });
      expect(textOf(await job.result())).toMatch(/^[ABC] job done$/);
      const recoveredMs = Date.now() - upAt;

      // No instance was restarted: the same PIDs, still running; each logged the loss and the recovery.
      expect(cluster.instances.map((one) => one.child.pid)).toEqual(pids);
      expect(cluster.instances.every((one) => running(one.child))).toBe(true);
      for (const one of cluster.instances) {
        expect(one.stderr()).toMatch(/Redis connection lost/);
        expect(one.stderr()).toMatch(/Redis connection restored/);
      }
      console.log(`redis-nginx-outage: the session during the outage: ${statuses.join(',')}; error window checks took ${windowMs} ms; served again ${recoveredMs} ms after the restart`);
    } finally {
      await modern.close();
      await tasks.close();
    }
  }, 60_000);
});

// Without nginx or redis-server the suite above is skipped, and this line says why.
if (NGINX_CLUSTER_MISSING !== undefined) it.skip(NGINX_CLUSTER_MISSING, () => {});
