/**
 * Behind a real reverse proxy (nginx on loopback, in front of `serveHttp`, configured as the README says): the
 * caller is the client nginx names in `X-Forwarded-For`, read from the right, so per-caller budgets hold behind the
 * proxy, a forged first entry buys nothing, and a newcomer is served while an attacker holds its share.
 * Clients reach nginx from distinct loopback addresses (127.0.0.x are all loopback on Linux), so nginx sees (and
 * forwards) a distinct `$remote_addr` per client. nginx runs the cluster's configuration (scripts/lib/nginx.mjs,
 * README.md "Production deployment"; one upstream here) in the foreground from a temp folder and is stopped by its
 * PID. Without nginx the suite skips with one line naming what to install.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { post, type Answer } from './http-wire.js';
import { INSTALL_NGINX, NGINX, startNginx, type Nginx } from '../../scripts/lib/nginx.mjs';
import { silentLogger } from '@switchboard/jsonrpc';
import { McpServer } from '@switchboard/mcp/server';
import { serveHttp } from '@switchboard/mcp/node';
import type { ServeHttpHandle, ServeHttpOptions } from '@switchboard/mcp/node';

const STRESS = process.env.STRESS === '1';
const REVISION = '2025-11-25';
const MODERN = '2026-07-28';

function createServer(): McpServer {
  const server = new McpServer({ name: 'proxied', version: '1.0.0' }, { logger: silentLogger });
  // The caller key every per-caller budget counts against reaches the server with each message (`extra.caller`).
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: { text?: string }, ctx) =>
    ({ content: [{ type: 'text', text: `echo:${args.text ?? ''} caller:${String((ctx as { extra?: { caller?: string } }).extra?.caller)}` }] }));
  return server;
}

const session = (sid: string): Record<string, string> => ({ 'mcp-session-id': sid, 'mcp-protocol-version': REVISION });
const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'proxied', version: '0' } } };
const toolsList = (id: number): unknown => ({ jsonrpc: '2.0', id, method: 'tools/list' });

/** A session from `localAddress` that made two requests after the handshake (within its grace: not reclaimable). */
async function usedSession(port: number, localAddress: string, headers: Record<string, string> = {}): Promise<Answer & { sid?: string }> {
  const init = await post(port, localAddress, initialize, headers);
  const sid = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof sid !== 'string') return init;
  expect((await post(port, localAddress, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...headers, ...session(sid) })).status).toBe(202);
  for (const id of [1, 2]) expect((await post(port, localAddress, toolsList(id), { ...headers, ...session(sid) })).status).toBe(200);
  return { ...init, sid };
}

function listenRequest(id: number): string {
  const body = JSON.stringify({
    jsonrpc: '2.0', id, method: 'subscriptions/listen',
    params: { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } },
  });
  return `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n`
    + `MCP-Protocol-Version: ${MODERN}\r\nMcp-Method: subscriptions/listen\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** A listen stream through nginx from `localAddress`; resolves once its SSE answer began (or the socket closed). */
function listen(port: number, localAddress: string, id: number, sockets: net.Socket[]): Promise<net.Socket> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress }, () => socket.write(listenRequest(id)));
    sockets.push(socket);
    socket.on('error', () => {});
    socket.once('data', () => resolve(socket));
    socket.once('close', () => resolve(socket));
  });
}

const alive = (all: readonly net.Socket[]): number => all.filter((s) => !s.destroyed && s.readyState === 'open').length;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(NGINX === undefined)('behind nginx (trustProxy names it; the caller is the nearest untrusted X-Forwarded-For hop)', () => {
  let served: ServeHttpHandle | undefined;
  let nginx: Nginx | undefined;
  const sockets: net.Socket[] = [];

  async function start(options: Partial<ServeHttpOptions>): Promise<number> {
    served = await serveHttp({
      server: createServer(),
      host: '127.0.0.1',
      trustProxy: ['127.0.0.1'],
      headersTimeoutMs: 60_000,
      requestTimeoutMs: 60_000,
      logger: silentLogger,
      ...options,
    });
    nginx = await startNginx({ upstreams: [served.port] });
    return nginx.port;
  }

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await nginx?.stop();
    nginx = undefined;
    await served?.close();
    served = undefined;
  });

  it('the session budget holds per client behind the proxy; a forged first X-Forwarded-For entry buys nothing; another client is served', async () => {
    const budget = STRESS ? 50 : 3;
    const port = await start({ maxSessionsPerCaller: budget });
    for (let i = 0; i < budget; i++) {
      // Each request forges another first entry: nginx appends the real address, which is what counts.
      expect((await usedSession(port, '127.0.0.2', { 'x-forwarded-for': `198.51.100.${i + 1}` })).status).toBe(200);
    }
    const over = await usedSession(port, '127.0.0.2', { 'x-forwarded-for': '203.0.113.99' });
    expect(over.status).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(10);
    // Another client behind the same proxy has a budget of its own.
    const newcomer = await usedSession(port, '127.0.0.3');
    expect(newcomer.status).toBe(200);
    const call = await post(port, '127.0.0.3', { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo', arguments: { text: 'via nginx' } } }, session(newcomer.sid as string));
    expect(call.status).toBe(200);
    expect(call.body).toContain('echo:via nginx caller:address:127.0.0.3');
    // The attacker is named by the address nginx saw, not by the entry it forged.
    const attacker = await usedSession(port, '127.0.0.4', { 'x-forwarded-for': '198.51.100.200' });
    const forged = await post(port, '127.0.0.4', { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } }, { 'x-forwarded-for': '198.51.100.200', ...session(attacker.sid as string) });
    expect(forged.body).toContain('caller:address:127.0.0.4');
    console.log(`reliability proxy: nginx in front, ${budget} sessions per client held, the next got 429 (Retry-After ${String(over.headers['retry-after'])}), another client served`);
  });

  it('connections: one client holds at most its share of upstream connections, and a newcomer is served while two clients hold every slot', async () => {
    const share = STRESS ? 200 : 20;
    const max = STRESS ? 300 : 30;
    const port = await start({ maxConnections: max, maxConnectionsPerAddress: share });
    const a: net.Socket[] = [];
    let id = 0;
    for (let i = 0; i < share + 5; i += 25) {
      a.push(...(await Promise.all(Array.from({ length: Math.min(25, share + 5 - i) }, () => listen(port, '127.0.0.2', ++id, sockets)))));
    }
    await sleep(300);
    // The client behind the proxy is held at its share: its own longest-held streams were reclaimed for its newer ones.
    expect(alive(a)).toBeLessThanOrEqual(share);
    const b = await Promise.all(Array.from({ length: max - share + 5 }, () => listen(port, '127.0.0.4', ++id, sockets)));
    await sleep(300);
    expect(alive(a) + alive(b)).toBeGreaterThanOrEqual(max - 2);
    const began = Date.now();
    const newcomer = await usedSession(port, '127.0.0.3');
    expect(newcomer.status).toBe(200);
    console.log(`reliability proxy: nginx in front, maxConnections ${max}, share ${share}: client A held ${alive(a)}, B ${alive(b)}, newcomer served in ${Date.now() - began} ms`);
  });
});

// Without nginx the suite above is skipped, and this line says why.
if (NGINX === undefined) it.skip(INSTALL_NGINX, () => {});

