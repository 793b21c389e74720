/**
 * The dashboard in a real browser (issue 24): headless Chromium (Debian's `chromium`, driven by playwright-core:
 * test/helpers/chromium.ts) opens the page a server serves beside its MCP endpoint (`serveHttp({ otherPaths:
 * dashboard.listener })`). The page loads with the token from its address fragment (and takes it out of the
 * address), shows the calls this test made over Streamable HTTP (two clients, two users, each class), updates live
 * after a new call, keeps to its Content-Security-Policy (no violation reported), refuses a missing or wrong token
 * (the login panel, 401) and a page of another origin (403 to its preflight, the browser's fetch fails). A
 * screenshot is kept in `.artifacts/dashboard.png` (git-ignored; `docs/dashboard.png` is a copy of one).
 *
 * Without /usr/bin/chromium the file skips (`npm test` installs it when run as root: scripts/system-packages.mjs).
 */
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard, type Dashboard } from '@switchboard/dashboard';
import { McpError, McpErrorCode } from '@switchboard/mcp';
import { attachAnalytics, type Analytics } from '@switchboard/mcp/analytics';
import { McpClient, streamableHttp } from '@switchboard/mcp/client';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import { McpServer, rateLimitMiddleware } from '@switchboard/mcp/server';
import { HAS_CHROMIUM, startBrowser, stopBrowser, type RunningBrowser } from './helpers/chromium.js';
import { ROOT } from './interop-servers/harness.js';

const TOKEN = 'browser-test-token-5f1c0a';
const USER_META = 'example.com/user';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const ARTIFACTS = path.join(ROOT, '.artifacts');
const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A weather-and-travel server whose tools fail in each way a real one does. */
function travelServer(): McpServer {
  const server = new McpServer({ name: 'travel-demo', version: '2.3.0' }, { logger: silent });
  server.tool('get_forecast', { inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }, async ({ city }: { city: string }) => {
    await sleep(3 + (city.length % 5) * 4);
    return city === 'Atlantis' ? { content: [{ type: 'text', text: `Unknown city: ${city}` }], isError: true } : { content: [{ type: 'text', text: `${city}: 18 °C, light rain` }] };
  });
  server.tool('search_flights', {}, async () => {
    await sleep(40);
    return { content: [{ type: 'text', text: '3 flights' }] };
  });
  server.tool('book_hotel', {}, () => ({ content: [{ type: 'text', text: 'No rooms left for these dates' }], isError: true }));
  server.tool('convert_currency', {}, () => {
    throw new McpError(McpErrorCode.InvalidParams, 'Invalid params: unknown currency "XXX"');
  });
  server.tool('slow_report', {}, (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))));
  server.tool('late_tool', {}, () => ({ content: [{ type: 'text', text: 'Quota exceeded for late_tool' }], isError: true }));
  return server;
}

describe.skipIf(!HAS_CHROMIUM)('the dashboard in headless Chromium', () => {
  let served: ServeHttpHandle;
  let dashboard: Dashboard;
  let analytics: Analytics;
  let running: RunningBrowser | undefined;
  let other: http.Server;
  let otherOrigin: string;
  let base: string;
  const refusals: { readonly method: string; readonly origin: string | undefined; readonly status: number }[] = [];
  const violations: string[] = [];

  beforeAll(async () => {
    const server = travelServer();
    // The user a call is counted for: here the host names it in `_meta` (a deployment with auth keeps the default,
    // `authInfo.subject`).
    analytics = attachAnalytics(server, { serverVersion: '2.3.0', userOf: (call) => (call.params as { _meta?: Record<string, unknown> } | undefined)?._meta?.[USER_META] as string | undefined }).analytics;
    server.use({ methods: ['tools/call'] }, rateLimitMiddleware({ requestsPerSecond: 0.01, burst: 3, key: (call) => (call.name === 'search_flights' ? 'flights' : undefined) }));
    dashboard = createDashboard({ analytics, token: TOKEN, title: 'travel-demo' });
    // Every answer the dashboard gives with a status ≥ 400, seen at the server.
    const listener: typeof dashboard.listener = (req, res) => {
      res.once('finish', () => {
        if (res.statusCode >= 400) refusals.push({ method: req.method ?? '', origin: req.headers.origin, status: res.statusCode });
      });
      dashboard.listener(req, res);
    };
    served = await serveHttp({ server, port: 0, logger: silent, onRefused: analytics.onHttpRefused, otherPaths: listener });
    base = `http://127.0.0.1:${served.port}/dashboard/`;
    // Another origin: a page that will try to read the dashboard's data.
    other = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title>'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;

    // The calls: two hosts, two users, each class.
    const desktop = await McpClient.connect({ connector: streamableHttp({ url: served.url }), era: 'legacy', clientInfo: { name: 'claude-desktop', version: '1.4.2' } });
    const cursor = await McpClient.connect({ connector: streamableHttp({ url: served.url }), era: 'modern', clientInfo: { name: 'cursor', version: '0.48.1' } });
    const as = (user: string) => ({ meta: { [USER_META]: user } });
    try {
      for (const city of ['Paris', 'Lisbon', 'Oslo', 'Kyoto', 'Lima', 'Atlantis', 'Atlantis']) await desktop.callTool({ name: 'get_forecast', arguments: { city } }, as('alice'));
      for (const city of ['Berlin', 'Rome', 'Atlantis']) await cursor.callTool({ name: 'get_forecast', arguments: { city } }, as('bob'));
      for (let i = 0; i < 5; i++) await (i % 2 === 0 ? desktop : cursor).callTool({ name: 'search_flights', arguments: {} }, as(i % 2 === 0 ? 'alice' : 'bob')).catch(() => undefined); // the last two: refused (429)
      for (let i = 0; i < 3; i++) await desktop.callTool({ name: 'book_hotel', arguments: {} }, as('alice'));
      // A host that traces: its W3C trace id goes with the failure to the latest-failures table.
      await cursor.callTool({ name: 'book_hotel', arguments: {} }, { meta: { [USER_META]: 'carol', traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` } });
      await cursor.callTool({ name: 'convert_currency', arguments: {} }, as('bob')).catch(() => undefined);
      await cursor.callTool({ name: 'no_such_tool', arguments: {} }, as('bob')).catch(() => undefined);
      const controller = new AbortController();
      const cancelled = desktop.callTool({ name: 'slow_report', arguments: {} }, { ...as('alice'), signal: controller.signal }).catch(() => undefined);
      await sleep(50);
      controller.abort();
      await cancelled;
      // A request of a revision the server does not serve: refused by the HTTP handler (era_mismatch).
      const future = { 'io.modelcontextprotocol/protocolVersion': '2099-01-01', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'future-host', version: '9' } };
      const refusedEra = await fetch(served.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: future } }),
      });
      expect(((await refusedEra.json()) as { error?: { code?: number } }).error?.code).toBe(-32022);
    } finally {
      await desktop.close();
      await cursor.close();
    }
    // What only a client sees (its own timeout, a dropped connection) reaches the analytics through `record`.
    analytics.record({ outcome: { kind: 'client', code: 'request_timeout' }, method: 'tools/call', tool: 'search_flights', clientInfo: { name: 'claude-desktop', version: '1.4.2' }, user: 'alice', durationMs: 30_000, message: 'Request timed out' });
    analytics.record({ outcome: { kind: 'client', code: 'connection_closed' }, method: 'tools/call', tool: 'get_forecast', clientInfo: { name: 'cursor', version: '0.48.1' }, user: 'bob', durationMs: 1200 });
    running = await startBrowser();
  }, 90_000);

  afterAll(async () => {
    expect(await stopBrowser(running)).toBe(true);
    dashboard?.close();
    await served?.close();
    await new Promise<void>((resolve) => (other === undefined ? resolve() : other.close(() => resolve())));
  });

  async function newPage(): Promise<Page> {
    const context = await running!.browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') violations.push(message.text());
    });
    return page;
  }

  it('loads with the token from its fragment (then out of the address), shows the calls, and updates live', async () => {
    const page = await newPage();
    try {
      await page.goto(`${base}#token=${TOKEN}`);
      await page.waitForFunction(() => Number(document.body.dataset.renders ?? 0) >= 1, undefined, { timeout: 10_000 });
      expect(page.url()).toBe(base); // the token left the address bar (and never went on the wire: a fragment)
      // The title comes through the token (api/meta), set as text: the public page names no target.
      await page.waitForFunction(() => document.title === 'travel-demo', undefined, { timeout: 5000 });
      expect(await page.textContent('#title')).toBe('travel-demo');
      const total = analytics.snapshot().total;
      expect(await page.textContent('#kpi-calls')).toBe(String(total.count));
      expect(await page.textContent('#classes li[data-class="tool_error"] .count')).toBe(String(total.classes.tool_error));
      for (const c of ['ok', 'tool_error', 'protocol_error', 'refused', 'era_mismatch', 'timeout', 'cancelled', 'transport'] as const) {
        expect(Number(await page.textContent(`#classes li[data-class="${c}"] .count`)), c).toBeGreaterThan(0);
      }
      const hotel = await page.textContent('#failing-tools tr[data-tool="book_hotel"]');
      expect(hotel).toContain('tool_error 4');
      expect(hotel).toContain('claude-desktop/1.4.2 (3)');
      expect(hotel).toContain('alice (3)');
      expect(hotel).toContain('carol (1)');
      expect(await page.textContent('#messages')).toContain('No rooms left for these dates');
      expect(await page.textContent('#messages')).toContain('Invalid params: unknown currency "XXX"');
      expect(await page.textContent('#latency-table')).toContain('search_flights');
      expect(await page.textContent('#users')).toContain('bob');

      // Live: a new failing call shows on the open page, with no reload, within a second.
      const client = await McpClient.connect({ connector: streamableHttp({ url: served.url }), clientInfo: { name: 'claude-code', version: '2.0.0' } });
      try {
        await client.callTool({ name: 'late_tool', arguments: {} }, { meta: { [USER_META]: 'dave' } });
        const shown = Date.now();
        await page.waitForSelector('#failing-tools tr[data-tool="late_tool"]', { timeout: 1000 });
        expect(Date.now() - shown).toBeLessThanOrEqual(1000);
      } finally {
        await client.close();
      }
      expect(await page.textContent('#failing-tools tr[data-tool="late_tool"]')).toContain('claude-code/2.0.0 (1)');
      const latest = await page.textContent('#recent tbody tr:first-child');
      expect(latest).toContain('late_tool');
      expect(latest).toContain('Quota exceeded for late_tool');
      expect(await page.textContent('#recent')).toContain(TRACE_ID);
      await page.waitForFunction(() => window.Chart !== undefined && document.querySelectorAll('canvas').length === 2);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard.png'), fullPage: true });
      expect(violations).toEqual([]); // no Content-Security-Policy violation, no script error
    } finally {
      await page.context().close();
    }
  }, 60_000);

  it('refuses a missing or wrong token: the login panel, 401 from the data; the right token opens it', async () => {
    const page = await newPage();
    try {
      await page.goto(base);
      await page.waitForSelector('#login:not([hidden])');
      expect(await page.isHidden('#main')).toBe(true);
      expect(await page.evaluate(() => fetch('api/analytics').then((r) => r.status))).toBe(401);
      expect(await page.title()).toBe('Switchboard dashboard'); // no target named without the token
      expect(await page.textContent('#title')).toBe('Switchboard dashboard');
      await page.fill('#token-input', 'not-the-token');
      await page.click('#token-form button');
      await page.waitForFunction(() => (document.getElementById('login-error')?.textContent ?? '').includes('refused'));
      expect(refusals.some((r) => r.status === 401)).toBe(true);
      await page.fill('#token-input', TOKEN);
      await page.click('#token-form button');
      await page.waitForSelector('#main:not([hidden])');
      expect(await page.isHidden('#login')).toBe(true);
    } finally {
      await page.context().close();
    }
  }, 30_000);

  it('refuses a page of another origin: its preflight gets 403 and the browser\'s fetch fails', async () => {
    const page = await newPage();
    try {
      refusals.length = 0;
      await page.goto(`${otherOrigin}/`);
      const outcome = await page.evaluate(
        ({ url, token }) => fetch(url, { headers: { authorization: `Bearer ${token}` } }).then((r) => `status ${r.status}`, (e: Error) => `failed: ${e.name}`),
        { url: `${base}api/analytics`, token: TOKEN },
      );
      expect(outcome).toBe('failed: TypeError');
      expect(refusals).toContainEqual({ method: 'OPTIONS', origin: otherOrigin, status: 403 });
      // A request that needs no preflight (a no-cors GET, which carries no Origin and whose answer the page cannot
      // read anyway) cannot carry the token: 401.
      await page.evaluate((url) => fetch(url, { mode: 'no-cors' }).catch(() => undefined), `${base}api/analytics`);
      await expect.poll(() => refusals.filter((r) => r.method === 'GET').map((r) => r.status)).toEqual([401]);
    } finally {
      await page.context().close();
    }
  }, 30_000);
});

declare global {
  interface Window {
    Chart?: unknown;
  }
}
