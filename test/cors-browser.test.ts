/**
 * A real browser as the MCP client (issue 22 item 1): headless Chromium (Debian's `chromium`, driven over the
 * DevTools protocol by playwright-core; no downloaded browser) loads a page from one loopback origin (a static
 * node:http server on 127.0.0.1) and calls a Switchboard server on another port that lists that origin in
 * `allowedOrigins`. The page runs a 2025-11-25 session (initialize, reads `Mcp-Session-Id`, calls a tool, DELETE),
 * a 2026-07-28 stateless request (its `_meta` envelope and `Mcp-Method`/`Mcp-Name`/`Mcp-Param-*` headers), a
 * 2024-11-05 HTTP+SSE session with `EventSource`, and Switchboard's own built `McpClient` (ES modules served by the
 * page's origin) in both eras; a page from an origin not listed is refused. The preflights the
 * browser sent, and their answers, are recorded at the server and asserted. Through both Node adapter paths
 * (`direct`, and `fetch`, the Web-standard handler).
 *
 * The browser is started by this file (its own process group, a fresh profile folder, DevTools on 127.0.0.1 only)
 * and stopped by its PID. Without /usr/bin/chromium the file skips with one line naming what to install
 * (`npm test` installs it when run as root: scripts/system-packages.mjs).
 */
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { silentLogger } from '@switchboard/jsonrpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '../packages/mcp/src/server/index.js';
import { createMcpHttpHandler } from '../packages/mcp/src/transports/http/index.js';
import type { McpHttpHandler } from '../packages/mcp/src/transports/http/index.js';
import { toNodeListener } from '../packages/mcp/src/transports/node/index.js';
import { HAS_CHROMIUM, startBrowser, stopBrowser, type RunningBrowser } from './helpers/chromium.js';

const MODERN = '2026-07-28';

/** Listens on 127.0.0.1, a port the system picks; resolves with the origin. */
async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** URL prefix → folder, for the page's ES modules: Switchboard's built client and the engine it imports (the JSON Schema validator is built into the client's files). */
const MODULE_FOLDERS: Readonly<Record<string, string>> = {
  '/mcp/': path.join(ROOT, 'packages', 'mcp', 'dist'),
  '/jsonrpc/': path.join(ROOT, 'packages', 'jsonrpc', 'dist'),
};
/** The page: an import map so the built client's bare imports resolve to the folders above. */
const PAGE = `<!doctype html><meta charset="utf-8"><title>MCP page</title><script type="importmap">${JSON.stringify({
  imports: { '@switchboard/jsonrpc': '/jsonrpc/index.js', '@switchboard/jsonrpc/internal': '/jsonrpc/internal.js' },
})}</script>`;

/** The page's own origin: the page at `/`, and `.js` files under {@link MODULE_FOLDERS} (nothing outside them). */
function pageServer(): http.Server {
  return http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://page');
    const prefix = Object.keys(MODULE_FOLDERS).find((p) => url.pathname.startsWith(p));
    if (prefix !== undefined && url.pathname.endsWith('.js')) {
      const folder = MODULE_FOLDERS[prefix]!;
      const file = path.resolve(folder, `.${url.pathname.slice(prefix.length - 1)}`);
      if (file.startsWith(folder + path.sep) && existsSync(file)) {
        res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
        res.end(readFileSync(file));
        return;
      }
    }
    if (url.pathname !== '/') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Not Found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
}

/** One preflight as the server saw it: what the browser asked for, and what it was answered. */
interface Preflight {
  readonly path: string;
  readonly request: Record<string, string>;
  readonly status: number;
  readonly answer: Record<string, string>;
}

function lowerCased(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof headers === 'object' && headers !== null) for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = String(v);
  return out;
}

/** The MCP server over node:http, recording each `OPTIONS` exchange (the head it writes, on both adapter paths). */
function mcpServer(handler: McpHttpHandler, via: 'direct' | 'fetch', preflights: Preflight[]): http.Server {
  const listener = toNodeListener(handler, { via });
  return http.createServer((req, res) => {
    if (req.method === 'OPTIONS') {
      const writeHead = res.writeHead.bind(res) as (status: number, ...rest: unknown[]) => http.ServerResponse;
      (res as { writeHead: unknown }).writeHead = (status: number, ...rest: unknown[]): http.ServerResponse => {
        const given = rest.find((r) => typeof r === 'object' && r !== null);
        preflights.push({ path: req.url ?? '', request: lowerCased(req.headers), status, answer: { ...lowerCased(res.getHeaders()), ...lowerCased(given) } });
        return writeHead(status, ...rest);
      };
    }
    listener(req, res);
  });
}

function createServer(): McpServer {
  const server = new McpServer({ name: 'cors-browser', version: '1.0.0' }, { logger: silentLogger });
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: { text?: string }) =>
    ({ content: [{ type: 'text', text: `echo:${args.text ?? ''}` }] }));
  server.tool('sql', { inputSchema: { type: 'object', properties: { region: { type: ['string', 'null'], 'x-mcp-header': 'Region' } } } }, (args: { region?: string | null }) =>
    ({ content: [{ type: 'text', text: `region:${String(args.region)}` }] }));
  return server;
}

/** What the page reports of a 2025-11-25 session. */
interface SessionRun {
  readonly initStatus: number;
  readonly sessionId: string | null;
  readonly protocolVersion: string | null;
  readonly initializedStatus: number;
  readonly callStatus: number;
  readonly callText: string;
  readonly deleteStatus: number;
}

/** In the page: initialize, read Mcp-Session-Id, notifications/initialized, tools/call, DELETE (plain fetch). */
function runSession(page: Page, url: string): Promise<SessionRun> {
  return page.evaluate(async (endpoint: string) => {
    const accept = 'application/json, text/event-stream';
    const init = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } }),
    });
    const result = (await init.json()) as { result?: { protocolVersion?: string } };
    const sessionId = init.headers.get('mcp-session-id');
    const session: Record<string, string> = { 'content-type': 'application/json', accept, 'mcp-protocol-version': '2025-11-25' };
    if (sessionId !== null) session['mcp-session-id'] = sessionId;
    const initialized = await fetch(endpoint, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    const call = await fetch(endpoint, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'from the page' } } }),
    });
    const callText = await call.text();
    const end = await fetch(endpoint, { method: 'DELETE', headers: session });
    return {
      initStatus: init.status,
      sessionId,
      protocolVersion: result.result?.protocolVersion ?? null,
      initializedStatus: initialized.status,
      callStatus: call.status,
      callText,
      deleteStatus: end.status,
    };
  }, url);
}

/** In the page: one 2026-07-28 tools/call (no session) with its `_meta` envelope and standard headers. */
function runModern(page: Page, url: string): Promise<{ status: number; text: string; sessionId: string | null }> {
  return page.evaluate(async ({ endpoint, modern }: { endpoint: string; modern: string }) => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': modern,
        'mcp-method': 'tools/call',
        'mcp-name': 'sql',
        'mcp-param-region': 'us-west1',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'sql',
          arguments: { region: 'us-west1' },
          _meta: { 'io.modelcontextprotocol/protocolVersion': modern, 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      }),
    });
    return { status: res.status, text: await res.text(), sessionId: res.headers.get('mcp-session-id') };
  }, { endpoint: url, modern: MODERN });
}

/** In the page: a 2024-11-05 HTTP+SSE session with EventSource: the endpoint event, then a ping POSTed and answered. */
function runHttpSse(page: Page, origin: string): Promise<{ endpoint: string; postStatus: number; answer: string }> {
  return page.evaluate(async (server: string) => {
    const source = new EventSource(`${server}/sse`);
    try {
      const endpoint = await new Promise<string>((resolve, reject) => {
        source.addEventListener('endpoint', (event) => resolve((event as MessageEvent<string>).data));
        source.onerror = () => reject(new Error('the EventSource failed'));
      });
      const answer = new Promise<string>((resolve) => source.addEventListener('message', (event) => resolve((event as MessageEvent<string>).data)));
      const post = await fetch(new URL(endpoint, server), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'page', version: '1' } } }),
      });
      return { endpoint, postStatus: post.status, answer: await answer };
    } finally {
      source.close();
    }
  }, origin);
}

/**
 * In the page: Switchboard's own McpClient (the built `@switchboard/mcp/client`) in one era calls a tool, then
 * closes. Source text, so the test runner does not rewrite its `import()`.
 */
function runOwnClient(page: Page, url: string, era: 'legacy' | 'modern'): Promise<{ era: string; protocolVersion: string; text: string }> {
  return page.evaluate(`(async () => {
    const { McpClient, streamableHttp } = await import('/mcp/client.js');
    const client = await McpClient.connect({ connector: streamableHttp({ url: ${JSON.stringify(url)} }), era: ${JSON.stringify(era)} });
    try {
      const result = await client.callTool({ name: 'echo', arguments: { text: 'own client, ${era}' } });
      const first = result.content[0];
      return { era: client.era, protocolVersion: client.protocolVersion, text: first && first.type === 'text' ? first.text : JSON.stringify(result) };
    } finally {
      await client.close();
    }
  })()`);
}

/** In the page: a call that the browser must refuse to let through; resolves with the error's name. */
function refusedCall(page: Page, url: string): Promise<string> {
  return page.evaluate(async (endpoint: string) => {
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } }),
      });
      return `answered ${res.status}`;
    } catch (error) {
      return (error as Error).name;
    }
  }, url);
}

describe.skipIf(!HAS_CHROMIUM).each(['direct', 'fetch'] as const)('a browser page calls the server across origins (Node adapter via %s)', (via) => {
  let running: RunningBrowser | undefined;
  let page: Page;
  let server: McpServer;
  let handler: McpHttpHandler;
  const preflights: Preflight[] = [];
  const servers: http.Server[] = [];
  let pageOrigin: string;
  let otherOrigin: string;
  let mcpOrigin: string;

  beforeAll(async () => {
    const allowed = pageServer();
    const other = pageServer();
    servers.push(allowed, other);
    pageOrigin = await listen(allowed);
    otherOrigin = await listen(other);
    server = createServer();
    handler = createMcpHttpHandler({ server, allowedOrigins: [pageOrigin], sseKeepAliveMs: 0 });
    const mcp = mcpServer(handler, via, preflights);
    servers.push(mcp);
    mcpOrigin = await listen(mcp);
    running = await startBrowser();
    const context = running.browser.contexts()[0] ?? (await running.browser.newContext());
    page = await context.newPage();
  }, 60_000);

  afterAll(async () => {
    expect(await stopBrowser(running)).toBe(true);
    await handler?.close();
    await server?.close();
    await Promise.all(servers.map(close));
  }, 30_000);

  it('a 2025-11-25 session: initialize, the session id read, a tool called, the session ended', async () => {
    await page.goto(`${pageOrigin}/`);
    const before = server.sessions.size;
    const run = await runSession(page, `${mcpOrigin}/mcp`);
    expect(run).toMatchObject({ initStatus: 200, protocolVersion: '2025-11-25', initializedStatus: 202, callStatus: 200, deleteStatus: 200 });
    expect(run.sessionId).toMatch(/^[\x21-\x7e]+$/);
    expect(run.callText).toContain('echo:from the page');
    expect(server.sessions.size).toBe(before);
    // The preflight of the session's requests: the browser asked for the MCP headers; all were allowed.
    const asked = preflights.find((p) => p.path === '/mcp' && (p.request['access-control-request-headers'] ?? '').includes('mcp-session-id'));
    expect(asked).toBeDefined();
    expect(asked!.request.origin).toBe(pageOrigin);
    expect(asked!.status).toBe(204);
    expect(asked!.answer).toMatchObject({
      'access-control-allow-origin': pageOrigin,
      'access-control-allow-methods': 'GET, POST, DELETE',
      'access-control-allow-headers': asked!.request['access-control-request-headers']!.split(',').map((h) => h.trim()).join(', '),
      'access-control-max-age': '7200',
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    });
    expect(asked!.answer['access-control-allow-headers']).toContain('mcp-protocol-version');
    // DELETE needed no preflight of its own: the browser cached the methods and headers this one allowed.
  }, 30_000);

  it('a 2026-07-28 request: the _meta envelope and its Mcp-Method, Mcp-Name and Mcp-Param-* headers go through', async () => {
    await page.goto(`${pageOrigin}/`);
    const run = await runModern(page, `${mcpOrigin}/mcp`);
    expect(run.status).toBe(200);
    expect(run.text).toContain('region:us-west1');
    expect(run.sessionId).toBeNull();
    const asked = preflights.find((p) => (p.request['access-control-request-headers'] ?? '').includes('mcp-param-region'));
    expect(asked?.status).toBe(204);
    expect(asked?.answer['access-control-allow-headers']?.split(', ')).toEqual(expect.arrayContaining(['mcp-method', 'mcp-name', 'mcp-param-region', 'mcp-protocol-version', 'content-type']));
  }, 30_000);

  it('a 2024-11-05 HTTP+SSE session: EventSource on /sse, the message POSTed, its answer on the stream', async () => {
    await page.goto(`${pageOrigin}/`);
    const run = await runHttpSse(page, mcpOrigin);
    expect(run.endpoint).toMatch(/^\/messages\?sessionId=/);
    expect(run.postStatus).toBe(202);
    expect(JSON.parse(run.answer)).toMatchObject({ jsonrpc: '2.0', id: 7, result: { protocolVersion: '2024-11-05' } });
    const asked = preflights.find((p) => p.path.startsWith('/messages'));
    expect(asked).toMatchObject({ status: 204, answer: { 'access-control-allow-methods': 'POST', 'access-control-allow-origin': pageOrigin } });
  }, 30_000);

  it.each(['legacy', 'modern'] as const)('Switchboard\'s own McpClient, loaded as ES modules in the page, works in the %s era', async (era) => {
    await page.goto(`${pageOrigin}/`);
    const before = server.sessions.size;
    const run = await runOwnClient(page, `${mcpOrigin}/mcp`, era);
    expect(run).toEqual({ era, protocolVersion: era === 'legacy' ? '2025-11-25' : MODERN, text: `echo:own client, ${era}` });
    // The legacy client ended its session with a DELETE from the page.
    expect(server.sessions.size).toBe(before);
  }, 30_000);

  it('a page from an origin not listed is refused: its preflight gets 403, its fetch fails, no session opens', async () => {
    await page.goto(`${otherOrigin}/`);
    const before = server.sessions.size;
    expect(await refusedCall(page, `${mcpOrigin}/mcp`)).toBe('TypeError');
    const asked = preflights.find((p) => p.request.origin === otherOrigin);
    expect(asked?.status).toBe(403);
    expect(asked?.answer['access-control-allow-origin']).toBeUndefined();
    expect(server.sessions.size).toBe(before);
  }, 30_000);
});

// Without Chromium the tests above are skipped, and this line says why.
if (!HAS_CHROMIUM) it.skip('install chromium (Debian: apt-get install chromium)', () => {});
