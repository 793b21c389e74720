/**
 * Faults (the standing reliability suite): what a client or host can do to a running server besides sending bad
 * bytes — disconnect mid-call, crash the server mid-call, close the server's stdin, stdout or stderr, stop it with
 * SIGTERM, drop an SSE stream — and what must hold afterwards: the server survives, every call settles, nothing
 * that was produced is lost or repeated.
 *
 * Every server runs on 127.0.0.1, port 0; every child process is stopped by its PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '@switchboard/mcp/server';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import type { Logger } from '@switchboard/jsonrpc';
import { afterEach, describe, expect, it } from 'vitest';
import { call, inSession, messagesOf, open, openSession, REVISION } from './http-wire.js';
import { addSleepTool } from '../fixtures/tools.mjs';

const FIXTURE = fileURLToPath(new URL('./fixtures/reliability-server.mjs', import.meta.url));
const CONFORMANCE_MAIN = fileURLToPath(new URL('../../examples/conformance-server/main.js', import.meta.url));
const DEMO_MAIN = fileURLToPath(new URL('../../examples/demo/main.js', import.meta.url));

const children: ChildProcess[] = [];
const handles: ServeHttpHandle[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  }
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: not settled within ${ms} ms`)), ms);
    }),
  ]);
}

/** Resolves true when a TCP connection to 127.0.0.1:`port` is refused, false when it is accepted. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** A server whose `gate` tool answers only when the test opens its gate; `sleep` answers after `ms`. */
function gatedServer(): { server: McpServer; opened: () => void; calls: () => number } {
  const server = new McpServer({ name: 'faults', version: '0' });
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started = 0;
  server.tool('gate', {}, async () => {
    started++;
    await gate;
    return { content: [{ type: 'text', text: 'through' }] };
  });
  addSleepTool(server);
  server.tool(
    'chatter',
    { inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
    async ({ n }, ctx) => {
      for (let i = 1; i <= n; i++) {
        await ctx.log('info', `line ${i}`);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      return { content: [{ type: 'text', text: `said ${n}` }] };
    },
  );
  return { server, opened: () => release(), calls: () => started };
}

function recordingLogger(lines: string[]): Logger {
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

async function serve(server: McpServer, extra: { logger?: Logger } = {}): Promise<ServeHttpHandle> {
  const handle = await serveHttp({ server, port: 0, host: '127.0.0.1', ...extra });
  handles.push(handle);
  return handle;
}

function spawnFixture(args: string[]): ChildProcess {
  const child = spawn(process.execPath, [FIXTURE, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  return child;
}

/** Spawns a launcher (`--port 0`) and resolves with the child and its port once the URL line is on stderr. */
async function spawnLauncher(main: string): Promise<{ child: ChildProcess; port: number; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [main, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr?.setEncoding('utf8');
  const url = await withTimeout(
    new Promise<string>((resolve, reject) => {
      child.stderr?.on('data', (chunk: string) => {
        err += chunk;
        const m = /(http:\/\/127\.0\.0\.1:(\d+)\/mcp)/.exec(err);
        if (m !== null) resolve(m[1] as string);
      });
      child.once('exit', (code) => reject(new Error(`launcher exited ${String(code)}: ${err}`)));
    }),
    20_000,
    'launcher start-up',
  );
  return { child, port: Number(new URL(url).port), url, stderr: () => err };
}

describe('client disconnect mid-call (HTTP)', () => {
  it('the server survives, the session answers a ping, and the answer waits in the history for Last-Event-ID', async () => {
    const { server } = gatedServer();
    const handle = await serve(server);
    const sid = await openSession(handle.url);
    const ex = await open(handle.url, {
      body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'sleep', arguments: { ms: 300 } } },
      headers: inSession(sid),
    });
    expect(ex.status).toBe(200);
    expect(ex.headers['content-type']).toBe('text/event-stream');
    await ex.waitForEvents(1); // the priming event (MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery")
    const priming = ex.events[0];
    expect(priming?.data).toBe('');
    expect(priming?.id).toMatch(/\S/);
    ex.cut();

    const ping = await call(handle.url, { body: { jsonrpc: '2.0', id: 'p', method: 'ping' }, headers: inSession(sid) });
    expect(ping.status).toBe(200);
    expect(ping.messages).toEqual([{ jsonrpc: '2.0', id: 'p', result: {} }]);

    // After the tool finished (its answer had no connection to go to), a resume from the priming event gets it.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const resumed = await call(handle.url, {
      method: 'GET',
      headers: { ...inSession(sid), accept: 'text/event-stream', 'last-event-id': priming?.id ?? '' },
    });
    expect(resumed.status).toBe(200);
    expect(messagesOf(resumed.events)).toEqual([{ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'slept 300' }] } }]);
    expect(server.sessions.size).toBe(1);
  });

  it('a cut while the call is pending, on 2025-03-26 (no priming event): the server survives and the session still answers', async () => {
    const { server } = gatedServer();
    const handle = await serve(server);
    const init = await call(handle.url, {
      body: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'r', version: '0' } } },
    });
    const sid = init.headers['mcp-session-id'] as string;
    const headers = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-03-26' };
    await call(handle.url, { body: { jsonrpc: '2.0', method: 'notifications/initialized' }, headers });
    const ex = await open(handle.url, {
      body: { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'sleep', arguments: { ms: 200 } } },
      headers,
    });
    expect(ex.status).toBe(200);
    ex.cut();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ping = await call(handle.url, { body: { jsonrpc: '2.0', id: 'p2', method: 'ping' }, headers });
    expect(ping.messages).toEqual([{ jsonrpc: '2.0', id: 'p2', result: {} }]);
  });
});

describe('server crash mid-call (the official SDK client, @modelcontextprotocol/sdk 1.32.2)', () => {
  it('stdio: SIGKILL of the server settles the pending call with "Connection closed" within 1 s', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [FIXTURE, '--stdio'], stderr: 'pipe' });
    const client = new Client({ name: 'faults', version: '0' });
    await client.connect(transport);
    const pid = transport.pid;
    expect(pid).toBeTypeOf('number');
    const pending = client.callTool({ name: 'sleep', arguments: { ms: 30_000 } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const killedAt = Date.now();
    process.kill(pid as number, 'SIGKILL');
    const error = await withTimeout(pending, 5000, 'the pending call');
    const settledMs = Date.now() - killedAt;
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.ConnectionClosed);
    expect((error as McpError).message).toBe('MCP error -32000: Connection closed');
    expect(settledMs).toBeLessThan(1000);
    await client.close();
  });

  it('HTTP: SIGKILL of the server is reported to the client at once, and the pending call settles with "Connection closed" when the host closes on that report', async () => {
    // The SDK's Streamable HTTP client never closes itself on a lost stream: it reports the loss through
    // `onerror`, retries the stream (a resume with Last-Event-ID), and leaves the call pending until its request
    // timeout (60 s). A host that closes the client on the report settles the call at once, as here.
    const child = spawnFixture(['--http']);
    const url = await withTimeout(
      new Promise<string>((resolve) => {
        let out = '';
        child.stdout?.setEncoding('utf8');
        child.stdout?.on('data', (chunk: string) => {
          out += chunk;
          const m = /listening (\S+)/.exec(out);
          if (m !== null) resolve(m[1] as string);
        });
      }),
      20_000,
      'the HTTP fixture start-up',
    );
    const transport = new StreamableHTTPClientTransport(new URL(url), { reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 10, maxReconnectionDelay: 10, reconnectionDelayGrowFactor: 1 } });
    const client = new Client({ name: 'faults', version: '0' });
    const reports: string[] = [];
    let reportedAt = 0;
    client.onerror = (error) => {
      reports.push(error.message);
      reportedAt ||= Date.now();
      void client.close();
    };
    await client.connect(transport);
    const pending = client.callTool({ name: 'sleep', arguments: { ms: 30_000 } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const killedAt = Date.now();
    process.kill(child.pid as number, 'SIGKILL');
    const error = await withTimeout(pending, 5000, 'the pending call');
    const settledMs = Date.now() - killedAt;
    expect(reports.length).toBeGreaterThan(0);
    expect(reports[0]).toMatch(/^SSE stream disconnected: /);
    expect(reportedAt - killedAt).toBeLessThan(1000);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.ConnectionClosed);
    expect((error as McpError).message).toBe('MCP error -32000: Connection closed');
    expect(settledMs).toBeLessThan(1000);
  });
});

describe('the host closes the server\'s pipes (stdio)', () => {
  const INIT = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: REVISION, capabilities: { sampling: {} }, clientInfo: { name: 'faults', version: '0' } } };
  const line = (m: unknown): string => `${JSON.stringify(m)}\n`;

  async function started(): Promise<{ child: ChildProcess; out: () => string; waitFor: (needle: string) => Promise<void> }> {
    const child = spawnFixture(['--stdio']);
    let out = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => (out += chunk));
    child.stderr?.resume();
    const waitFor = async (needle: string): Promise<void> => {
      const until = Date.now() + 10_000;
      while (!out.includes(needle)) {
        if (Date.now() > until) throw new Error(`no ${needle} on stdout; got: ${out.slice(0, 2000)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    child.stdin?.write(line(INIT));
    await waitFor('"id":"init"');
    child.stdin?.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    return { child, out: () => out, waitFor };
  }

  it('stdin EOF with a call and a server→client request pending: the call is answered, the request fails, the process exits 0', async () => {
    const { child, out, waitFor } = await started();
    child.stdin?.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'sleep', arguments: { ms: 300 } } }));
    child.stdin?.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask', arguments: {} } }));
    await waitFor('"method":"sampling/createMessage"');
    child.stdin?.end();
    const exit = await withTimeout(exitOf(child), 10_000, 'the server exit');
    expect(exit).toEqual({ code: 0, signal: null });
    const messages = out().trim().split('\n').map((l) => JSON.parse(l) as { id?: unknown });
    expect(messages.find((m) => m.id === 1)).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'slept 300' }] } });
    // The sampling request can never be answered now: it fails locally, and the tool reports that failure.
    const asked = messages.find((m) => m.id === 2) as { result?: { isError?: boolean; content?: { text: string }[] } } | undefined;
    expect(asked?.result?.isError).toBe(true);
    expect(asked?.result?.content?.[0]?.text).toMatch(/^sampling failed: /);
    // Every request was answered exactly once.
    expect(messages.filter((m) => m.id === 1 || m.id === 2 || m.id === 'init')).toHaveLength(3);
  });

  it('stdout and stderr closed by the host: the server neither crashes nor spins (it ends, exit 0)', async () => {
    const { child } = await started();
    child.stdout?.destroy();
    child.stderr?.destroy();
    for (let i = 0; i < 50; i++) {
      child.stdin?.write(line({ jsonrpc: '2.0', id: 100 + i, method: 'ping' }));
      child.stdin?.write(line({ jsonrpc: '2.0', id: 424_242 + i, result: {} })); // a stray response: logs a warning
    }
    const exit = await withTimeout(exitOf(child), 10_000, 'the server exit');
    expect(exit).toEqual({ code: 0, signal: null });
  });

  it('stdout closed by the host, stdin kept open: the server ends by itself (exit 0) instead of spinning on EPIPE', async () => {
    const { child } = await started();
    child.stdout?.destroy();
    child.stdin?.write(line({ jsonrpc: '2.0', id: 'after', method: 'ping' }));
    const exit = await withTimeout(exitOf(child), 10_000, 'the server exit');
    expect(exit).toEqual({ code: 0, signal: null });
  });
});

describe('graceful shutdown (serveHttp close({ drainMs }) and the launchers on SIGTERM)', () => {
  it('close({ drainMs }) refuses new sessions (503), answers the calls in flight, then closes and refuses connections', async () => {
    const { server, opened, calls } = gatedServer();
    const handle = await serve(server);
    const sid = await openSession(handle.url);
    const inFlight = await Promise.all(
      [1, 2, 3].map((id) => open(handle.url, { body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'gate', arguments: {} } }, headers: inSession(sid) })),
    );
    while (calls() < 3) await new Promise((r) => setTimeout(r, 5));
    const closed = handle.close({ drainMs: 10_000 });
    let closedYet = false;
    void closed.then(() => (closedYet = true));
    await new Promise((r) => setTimeout(r, 50));
    // The listener stays open while draining (a call may wait for its client's answer on a new connection), but a
    // new session is refused.
    const fresh = await fetch(handle.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'late', version: '0' } } }),
    });
    expect(fresh.status).toBe(503);
    await fresh.text();
    expect(closedYet).toBe(false);
    opened();
    for (const [i, ex] of inFlight.entries()) {
      await ex.done;
      expect(messagesOf(ex.events)).toEqual([{ jsonrpc: '2.0', id: i + 1, result: { content: [{ type: 'text', text: 'through' }] } }]);
    }
    await withTimeout(closed, 5000, 'close');
    expect(server.sessions.size).toBe(0);
    expect(await refused(handle.port)).toBe(true);
  });

  it('close({ drainMs }) stops waiting at the deadline and says so', async () => {
    const { server } = gatedServer();
    const lines: string[] = [];
    const handle = await serve(server, { logger: recordingLogger(lines) });
    const sid = await openSession(handle.url);
    const stuck = await open(handle.url, { body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'gate', arguments: {} } }, headers: inSession(sid) });
    const t0 = Date.now();
    await withTimeout(handle.close({ drainMs: 200 }), 5000, 'close');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    await stuck.done;
    expect(lines).toContain('warn MCP HTTP server closing with requests in flight: the drain deadline passed {"unanswered":1,"drainMs":200}');
  });

  it('close({ drainMs }) refuses a bad deadline', async () => {
    const { server } = gatedServer();
    const handle = await serve(server);
    await expect(handle.close({ drainMs: -1 })).rejects.toThrow(new RangeError('Invalid option drainMs: expected a number of milliseconds from 0 to 2147483647, got -1'));
  });

  it('examples/conformance-server/main.js: SIGTERM during a call answers it, exits 0, and the port is closed', async () => {
    const { child, port, url } = await spawnLauncher(CONFORMANCE_MAIN);
    const sid = await openSession(url);
    const ex = await open(url, {
      body: { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'pt' } } },
      headers: inSession(sid),
    });
    await ex.waitForEvents(2); // priming + the first progress notification: the tool is running
    process.kill(child.pid as number, 'SIGTERM');
    const exit = exitOf(child);
    await ex.done;
    const messages = messagesOf(ex.events);
    expect(messages.at(-1)).toEqual({ jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'pt' }] } });
    expect(await withTimeout(exit, 15_000, 'the launcher exit')).toEqual({ code: 0, signal: null });
    expect(await refused(port)).toBe(true);
  });

  it('examples/demo/main.js: SIGTERM during a call answers it and exits 0', async () => {
    const { child, url } = await spawnLauncher(DEMO_MAIN);
    const sid = await openSession(url);
    const slow = await open(url, {
      body: { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'execute_sql', arguments: { query: 'SELECT a.id, b.id FROM customers a CROSS JOIN customers b', limit: 500 }, _meta: { progressToken: 'p' } } },
      headers: inSession(sid),
    });
    await slow.waitForEvents(2); // priming + the first progress notification: the query is running
    process.kill(child.pid as number, 'SIGTERM');
    const exit = exitOf(child);
    await slow.done;
    const last = messagesOf(slow.events).at(-1) as { id: number; result: { structuredContent: { rowCount: number; truncated: boolean } } };
    expect(last.id).toBe(9);
    expect(last.result.structuredContent.rowCount).toBe(500);
    expect(last.result.structuredContent.truncated).toBe(true);
    expect(await withTimeout(exit, 15_000, 'the launcher exit')).toEqual({ code: 0, signal: null });
  });
});

describe('a dropped SSE stream resumed with Last-Event-ID', () => {
  it('cut twice mid-call and resumed each time: every event arrives exactly once, in order', async () => {
    const { server } = gatedServer();
    const handle = await serve(server);
    const sid = await openSession(handle.url);
    const N = 60;
    const first = await open(handle.url, {
      body: { jsonrpc: '2.0', id: 42, method: 'tools/call', params: { name: 'chatter', arguments: { n: N } } },
      headers: inSession(sid),
    });
    await first.waitForEvents(10);
    first.cut();
    const seen = [...first.events];
    const resume = async (waitFor: number | undefined): Promise<void> => {
      const ex = await open(handle.url, { method: 'GET', headers: { ...inSession(sid), accept: 'text/event-stream', 'last-event-id': seen.at(-1)?.id ?? '' } });
      expect(ex.status).toBe(200);
      if (waitFor === undefined) await ex.done;
      else {
        await ex.waitForEvents(waitFor);
        ex.cut();
      }
      seen.push(...ex.events);
    };
    await resume(10);
    await resume(undefined);
    const ids = seen.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const messages = messagesOf(seen);
    const expected = [
      ...Array.from({ length: N }, (_, i) => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `line ${i + 1}` } })),
      { jsonrpc: '2.0', id: 42, result: { content: [{ type: 'text', text: `said ${N}` }] } },
    ];
    expect(messages).toEqual(expected);
  });
});
