/**
 * The dashboard mounted beside the MCP endpoint (`serveHttp({ otherPaths: dashboard.listener })`), over real
 * sockets on 127.0.0.1: the page and its files (Chart.js from the installed package), the access token on the data,
 * the MCP endpoint's Host and Origin rules on every path, the live feed (a new call within 1 s), its bound.
 */
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { attachAnalytics, type AnalyticsSnapshot } from '@switchboard/mcp/analytics';
import { McpClient, streamableHttp } from '@switchboard/mcp/client';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import { McpServer } from '@switchboard/mcp/server';
import { createDashboard, type Dashboard } from './dashboard.js';

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const TOKEN = 'test-token-0123456789abcdef';

interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** One request over node:http (so `Host` can be anything). */
function request(port: number, path: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** An open `api/events` stream: the snapshots it delivered so far, and a way to wait for the next. */
function events(port: number, path: string): Promise<{ snapshots: AnalyticsSnapshot[]; next: (timeoutMs: number) => Promise<AnalyticsSnapshot>; close: () => void; status: number }> {
  return new Promise((resolve, reject) => {
    const snapshots: AnalyticsSnapshot[] = [];
    let wake: (() => void) | undefined;
    const req = http.get({ host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream' } }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (block.includes('event: snapshot') && data !== undefined) {
            snapshots.push(JSON.parse(data.slice(6)) as AnalyticsSnapshot);
            wake?.();
          }
        }
      });
      const next = (timeoutMs: number): Promise<AnalyticsSnapshot> => {
        const seen = snapshots.length;
        return new Promise((done, fail) => {
          const timer = setTimeout(() => fail(new Error(`no new snapshot within ${timeoutMs} ms`)), timeoutMs);
          wake = () => {
            if (snapshots.length > seen) {
              clearTimeout(timer);
              done(snapshots[snapshots.length - 1]!);
            }
          };
        });
      };
      resolve({ snapshots, next, close: () => req.destroy(), status: res.statusCode ?? 0 });
    });
    req.on('error', reject);
  });
}

describe('createDashboard beside the MCP endpoint', () => {
  let served: ServeHttpHandle | undefined;
  let dashboard: Dashboard | undefined;
  afterEach(async () => {
    dashboard?.close();
    await served?.close();
    served = dashboard = undefined;
  });

  async function start(options: { maxStreams?: number } = {}): Promise<{ port: number; server: McpServer; url: string }> {
    const server = new McpServer({ name: 'dash-test', version: '1.0.0' }, { logger: silent });
    server.tool('ok', {}, () => ({ content: [{ type: 'text', text: 'fine' }] }));
    server.tool('flaky', {}, () => ({ content: [{ type: 'text', text: 'disk <b>full</b>' }], isError: true }));
    const { analytics } = attachAnalytics(server);
    dashboard = createDashboard({ analytics, token: TOKEN, title: 'Test <dashboard> node up.mjs --api-key sk-live-SECRET123', ...options });
    served = await serveHttp({ server, port: 0, logger: silent, onRefused: analytics.onHttpRefused, otherPaths: dashboard.listener });
    return { port: served.port, server, url: served.url };
  }

  it('serves the page (its policy, a generic title), its files and Chart.js from the package; the MCP endpoint stays at /mcp', async () => {
    const { port, url } = await start();
    const page = await request(port, '/dashboard/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    // The page is public: its title never names what is watched (review-1 finding 5); the title is in api/meta.
    expect(page.body).toContain('<h1 id="title">Switchboard dashboard</h1>');
    expect(page.body).not.toContain('SECRET123');
    expect(page.body).not.toContain('Test');
    expect(page.body).not.toMatch(/https?:\/\//); // nothing from another origin
    const chart = await request(port, '/dashboard/assets/chart.umd.min.js');
    expect(chart.status).toBe(200);
    expect(chart.body.length).toBeGreaterThan(100_000);
    expect(chart.body).toContain('Chart');
    expect((await request(port, '/dashboard/assets/chart.umd.min.js', { headers: { 'if-none-match': String(chart.headers.etag) } })).status).toBe(304);
    expect((await request(port, '/dashboard/assets/dashboard.js')).headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await request(port, '/dashboard/assets/nope.js')).status).toBe(404);
    const bare = await request(port, '/dashboard');
    expect([bare.status, bare.headers.location]).toEqual([308, '/dashboard/']);
    expect((await request(port, '/dashboard/', { method: 'POST' })).status).toBe(405);
    expect((await request(port, '/elsewhere')).status).toBe(404);
    const client = await McpClient.connect({ connector: streamableHttp({ url }) });
    try {
      expect((await client.callTool({ name: 'ok', arguments: {} })).content).toEqual([{ type: 'text', text: 'fine' }]);
    } finally {
      await client.close();
    }
  });

  it('the data needs the token: missing or wrong is 401 (with WWW-Authenticate), the right one reads the snapshot', async () => {
    const { port, url } = await start();
    const client = await McpClient.connect({ connector: streamableHttp({ url }), clientInfo: { name: 'dash-client', version: '3' } });
    try {
      await client.callTool({ name: 'ok', arguments: {} });
      await client.callTool({ name: 'flaky', arguments: {} });
    } finally {
      await client.close();
    }
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: TOKEN }, { authorization: `Basic ${TOKEN}` }] as Record<string, string>[]) {
      const refused = await request(port, '/dashboard/api/analytics', { headers });
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toBe('Bearer realm="switchboard-dashboard"');
      expect(refused.body).not.toContain('flaky');
    }
    expect((await request(port, '/dashboard/api/events')).status).toBe(401);
    // Two Authorization lines, the right token first: Node's req.headers keeps only the first; refused all the same.
    const twice = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end(`GET /dashboard/api/analytics HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nAuthorization: Bearer wrong\r\nConnection: close\r\n\r\n`);
      });
      let text = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text)).on('error', reject);
    });
    expect(twice.split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
    const hidden = await request(port, '/dashboard/api/meta');
    expect([hidden.status, hidden.body.includes('SECRET123')]).toEqual([401, false]);
    const meta = await request(port, '/dashboard/api/meta', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect([meta.status, meta.headers['cache-control'], JSON.parse(meta.body)]).toEqual([200, 'no-store', { title: 'Test <dashboard> node up.mjs --api-key sk-live-SECRET123' }]);
    const ok = await request(port, '/dashboard/api/analytics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers['cache-control']).toBe('no-store');
    const snap = JSON.parse(ok.body) as AnalyticsSnapshot;
    expect(snap.version).toBe(1);
    const flaky = snap.byTool.find((r) => r.key === 'flaky');
    expect(flaky).toMatchObject({ classes: { tool_error: 1 }, topMessages: [{ message: 'disk <b>full</b>', count: 1 }], failingClients: [{ key: 'dash-client/3', failures: 1 }] });
  });

  it('the MCP endpoint\'s Host and Origin rules on every path: a foreign Host or Origin is 403, the own origin passes', async () => {
    const { port } = await start();
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const path of ['/dashboard/', '/dashboard/assets/chart.umd.min.js', '/dashboard/api/analytics']) {
      expect((await request(port, path, { headers: { ...auth, host: 'evil.example' } })).status).toBe(403);
      expect((await request(port, path, { headers: { ...auth, origin: 'http://evil.example' } })).status).toBe(403);
      expect((await request(port, path, { headers: { ...auth, origin: 'null' } })).status).toBe(403);
    }
    // A preflight from a foreign page is refused before anything else.
    expect((await request(port, '/dashboard/api/analytics', { method: 'OPTIONS', headers: { origin: 'http://evil.example', 'access-control-request-method': 'GET' } })).status).toBe(403);
    expect((await request(port, '/dashboard/api/analytics', { headers: { ...auth, host: `localhost:${port}`, origin: `http://localhost:${port}` } })).status).toBe(200);
  });

  it('live: the stream starts with the snapshot, and a new call shows within 1 s; streams are bounded', async () => {
    const { port, url } = await start({ maxStreams: 1 });
    const stream = await events(port, '/dashboard/api/events');
    try {
      expect(stream.status).toBe(200);
      for (let i = 0; i < 50 && stream.snapshots.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(stream.snapshots[0]?.total.count).toBe(0);
      expect((await request(port, '/dashboard/api/events', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(503); // maxStreams 1
      const client = await McpClient.connect({ connector: streamableHttp({ url }) });
      try {
        const next = stream.next(1000);
        await client.callTool({ name: 'flaky', arguments: {} });
        const seen = await next;
        expect(seen.byTool.find((r) => r.key === 'flaky')?.classes.tool_error).toBe(1);
      } finally {
        await client.close();
      }
    } finally {
      stream.close();
    }
    for (let i = 0; i < 50 && dashboard!.streams > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(dashboard!.streams).toBe(0); // a closed connection leaves the feed
  });

  it('refuses options it cannot serve', () => {
    const analytics = attachAnalytics(new McpServer({ name: 'x', version: '1' }, { logger: silent })).analytics;
    expect(() => createDashboard({ analytics, token: '' })).toThrow(TypeError);
    expect(() => createDashboard({ analytics } as never)).toThrow(/token/);
    expect(() => createDashboard({ analytics, token: TOKEN, path: 'dashboard' })).toThrow(TypeError);
    expect(() => createDashboard({ analytics, token: TOKEN, maxStreams: 0 })).toThrow(RangeError);
  });
});
