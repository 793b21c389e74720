/**
 * Admission fairness (the standing reliability suite): for every shared budget of `serveHttp` — connections,
 * half-sent requests, sessions — an attacker holds it full, then a newcomer from another address (127.0.0.2: every
 * 127.x address is loopback on Linux, and a client can bind it) connects, opens a session and gets answers within
 * seconds. Timeouts are set long so that only the reclaim order, never a timeout, can let the newcomer in.
 * Smoke sizes by default; `STRESS=1` holds the defaults full (1,000 listen streams, 10,000 sessions).
 */
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { post } from './http-wire.js';
import { silentLogger } from '@switchboard/jsonrpc';
import { McpServer } from '@switchboard/mcp/server';
import { serveHttp } from '@switchboard/mcp/node';
import type { ServeHttpHandle, ServeHttpOptions } from '@switchboard/mcp/node';

const STRESS = process.env.STRESS === '1';
const ATTACKER = '127.0.0.1';
const NEWCOMER = '127.0.0.2';
const REVISION = '2025-11-25';
const MODERN = '2026-07-28';
/** The newcomer's whole visit (connect, initialize, initialized, tools/list, tools/call) must end within this. */
const NEWCOMER_DEADLINE_MS = 10_000;

function createServer(): McpServer {
  const server = new McpServer({ name: 'fairness', version: '1.0.0' }, { logger: silentLogger });
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: { text?: string }) => ({ content: [{ type: 'text', text: `echo:${args.text ?? ''}` }] }));
  return server;
}

let served: ServeHttpHandle | undefined;
const sockets: net.Socket[] = [];
const agents: http.Agent[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const agent of agents.splice(0)) agent.destroy();
  await served?.close();
  served = undefined;
});

async function start(options: Partial<ServeHttpOptions>): Promise<ServeHttpHandle> {
  served = await serveHttp({
    server: createServer(),
    headersTimeoutMs: 60_000,
    requestTimeoutMs: 60_000,
    keepAliveTimeoutMs: 60_000,
    logger: silentLogger,
    ...options,
  });
  return served;
}

const session = (sid: string): Record<string, string> => ({ 'mcp-session-id': sid, 'mcp-protocol-version': REVISION });
const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'fairness', version: '0' } } };
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

/** initialize (+ notifications/initialized unless `handshake` is false): the session id. */
async function openSession(port: number, localAddress: string, agent: http.Agent | false = false, handshake = true): Promise<string> {
  const init = await post(port, localAddress, initialize, {}, agent);
  const sid = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof sid !== 'string') throw new Error(`initialize got ${init.status} (Retry-After ${String(init.headers['retry-after'])}): ${init.body}`);
  if (handshake) expect((await post(port, localAddress, initialized, session(sid), agent)).status).toBe(202);
  return sid;
}

/**
 * The newcomer's visit from {@link NEWCOMER}: a session, a tools/list and a tools/call answered, each on a new
 * connection, within {@link NEWCOMER_DEADLINE_MS}. Resolves with how long it took (ms).
 */
async function newcomerVisit(port: number): Promise<number> {
  const began = Date.now();
  const visit = (async () => {
    const sid = await openSession(port, NEWCOMER);
    const list = await post(port, NEWCOMER, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, session(sid));
    expect(list.status).toBe(200);
    expect(list.body).toContain('"echo"');
    const callAnswer = await post(port, NEWCOMER, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }, session(sid));
    expect(callAnswer.status).toBe(200);
    expect(callAnswer.body).toContain('echo:hi');
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    visit,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the newcomer was not served within ${NEWCOMER_DEADLINE_MS} ms`)), NEWCOMER_DEADLINE_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  return Date.now() - began;
}

/** A raw connection from `localAddress` that wrote `data` and holds on; resolves once connected. */
function hold(port: number, localAddress: string, data: string): Promise<net.Socket> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress }, () => {
      socket.write(data);
      resolve(socket);
    });
    socket.on('error', () => {});
    socket.resume();
    sockets.push(socket);
  });
}

/** Opens `count` connections `at once` from `localAddress` (in waves, so the loopback backlog does not overflow). */
async function holdMany(count: number, make: () => Promise<net.Socket>): Promise<net.Socket[]> {
  const out: net.Socket[] = [];
  for (let i = 0; i < count; i += 100) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(100, count - i) }, make))));
  }
  return out;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function listenRequest(id: number): string {
  const body = JSON.stringify({
    jsonrpc: '2.0', id, method: 'subscriptions/listen',
    params: { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } },
  });
  return `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n`
    + `MCP-Protocol-Version: ${MODERN}\r\nMcp-Method: subscriptions/listen\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** A POST whose body (1,000 bytes announced) never completes. */
const HALF_SENT = 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc"';

function alive(all: readonly net.Socket[]): number {
  return all.filter((socket) => !socket.destroyed && socket.readyState === 'open').length;
}

describe('admission fairness: connections', () => {
  // The default cap, held whole (about a thousand streams) under STRESS.
  const max = STRESS ? 1024 : 60;
  const flood = max;

  it(`${flood} subscriptions/listen streams from one address (no session, no credentials) do not lock a newcomer out`, async () => {
    const { port } = await start(STRESS ? {} : { maxConnections: max });
    let id = 0;
    const streams = await holdMany(flood, () => hold(port, ATTACKER, listenRequest(++id)));
    // Every stream got its SSE answer: the attacker holds them.
    await sleep(STRESS ? 1500 : 300);
    expect(alive(streams)).toBe(flood);
    const tookMs = await newcomerVisit(port);
    const left = alive(streams);
    console.log(`reliability admission: ${flood} listen streams held, maxConnections ${max}: newcomer served in ${tookMs} ms, ${flood - left} streams reclaimed`);
    expect(left).toBeLessThan(flood);
    expect(left).toBeGreaterThan(flood - 10);
  });

  it(`${flood} half-sent POSTs (a body that never completes) do not lock a newcomer out`, async () => {
    const { port } = await start(STRESS ? {} : { maxConnections: max });
    const half = await holdMany(flood, () => hold(port, ATTACKER, HALF_SENT));
    // Past the fresh window (1 s) a request still arriving counts as half-sent.
    await sleep(1200);
    const tookMs = await newcomerVisit(port);
    console.log(`reliability admission: ${flood} half-sent POSTs held, maxConnections ${max}: newcomer served in ${tookMs} ms, ${flood - alive(half)} reclaimed`);
    expect(alive(half)).toBeLessThan(flood);
  });

  it(`half-sent POSTs are reclaimed first, before idle keep-alive connections and listen streams (${flood} held, a third each)`, async () => {
    const { port } = await start(STRESS ? {} : { maxConnections: max });
    const third = Math.floor(flood / 3);
    let id = 0;
    const streams = await holdMany(third, () => hold(port, ATTACKER, listenRequest(++id)));
    const idle = await holdMany(third, () => hold(port, ATTACKER, 'GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
    const half = await holdMany(flood - 2 * third, () => hold(port, ATTACKER, HALF_SENT));
    // Past the fresh window (1 s) a request still arriving counts as half-sent.
    await sleep(1200);
    const tookMs = await newcomerVisit(port);
    console.log(`reliability admission: ${half.length} half-sent POSTs + ${idle.length} idle + ${streams.length} streams held: newcomer served in ${tookMs} ms`);
    expect(alive(half)).toBeLessThan(half.length);
    expect(alive(idle)).toBe(idle.length);
    expect(alive(streams)).toBe(streams.length);
  });
});

describe('admission fairness: sessions', () => {
  const maxSessions = STRESS ? 10_000 : 200;

  async function floodSessions(port: number, requests: number, handshake: boolean): Promise<void> {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16, localAddress: ATTACKER });
    agents.push(agent);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < maxSessions) {
        next++;
        const sid = await openSession(port, ATTACKER, agent, handshake);
        for (let r = 0; r < requests; r++) {
          expect((await post(port, ATTACKER, { jsonrpc: '2.0', id: r + 1, method: 'tools/list' }, session(sid), agent)).status).toBe(200);
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
  }

  it.each([
    ['made one request after the handshake', 1, true],
    ['only completed the handshake', 0, true],
    ['never completed the handshake', 0, false],
  ] as const)(`${maxSessions} sessions that %s (one loopback caller, no budget) do not lock a newcomer out`, async (what, requests, handshake) => {
    const { port, handler } = await start({ maxSessions });
    await floodSessions(port, requests, handshake);
    expect(handler.sessionCount).toBe(maxSessions);
    // The attacker itself gets a session at once too: its own idlest goes (100 of them, timed).
    const began = Date.now();
    for (let i = 0; i < 100; i++) expect((await post(port, ATTACKER, initialize)).status).toBe(200);
    const atCapMs = (Date.now() - began) / 100;
    const tookMs = await newcomerVisit(port);
    console.log(`reliability admission: ${maxSessions} sessions that ${what}: newcomer served in ${tookMs} ms; an initialize at the full table took ${atCapMs.toFixed(1)} ms`);
    expect(handler.sessionCount).toBe(maxSessions);
  }, STRESS ? 300_000 : 60_000);
});
