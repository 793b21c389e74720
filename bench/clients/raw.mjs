#!/usr/bin/env node
// The raw client floor: what a person writes by hand to call one MCP tool, in plain Node, no library.
//
// stdio: spawn the server, `JSON.stringify(request) + '\n'` on its stdin per call, split its stdout on
// newlines, `JSON.parse` each line, settle the pending promise of that id (a Map). HTTP (Streamable HTTP,
// legacy session): one POST per call through a keep-alive `http.Agent` with C sockets (`--stack http`, the
// default) or through `globalThis.fetch` (`--stack fetch`: what the SDK clients and Switchboard's default
// connector use underneath), the answer read as `application/json` or as a `text/event-stream` (the event
// whose `data` is the response). Both open with `initialize` + `notifications/initialized` and close as the
// spec says (stdio: end stdin, then SIGTERM; HTTP: DELETE the session). No timeouts, no cancellation, no
// validation beyond "a result or an error": the floor.
import http from 'node:http';
import { spawn } from 'node:child_process';
import process from 'node:process';
import { runClient } from './_harness.mjs';

const PROTOCOL_VERSION = '2025-11-25';
const INITIALIZE = { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw-client', version: '1.0.0' } };

const settle = (p, msg) => (msg.error ? p.reject(new Error(`MCP error ${msg.error.code}: ${msg.error.message}`)) : p.resolve(msg.result));

function stdioAdapter({ server }) {
  const pending = new Map();
  let nextId = 1;
  let child;
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  return {
    async connect() {
      child = spawn(process.execPath, [server, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
      child.on('exit', (code) => {
        for (const p of pending.values()) p.reject(new Error(`server exited (${code})`));
        pending.clear();
      });
      let buf = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk) => {
        buf += chunk;
        let start = 0;
        let nl;
        while ((nl = buf.indexOf('\n', start)) !== -1) {
          const line = buf.slice(start, nl);
          start = nl + 1;
          if (!line) continue;
          const msg = JSON.parse(line);
          const p = pending.get(msg.id);
          if (p === undefined) continue; // a notification or a server request: not in this scenario
          pending.delete(msg.id);
          settle(p, msg);
        }
        buf = buf.slice(start);
      });
      const init = await request('initialize', INITIALIZE);
      child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      return { protocolVersion: init.protocolVersion, era: 'legacy' };
    },
    callEcho: (text) => request('tools/call', { name: 'echo', arguments: { text } }),
    close() {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin.end();
        setTimeout(() => child.kill('SIGTERM'), 1000).unref();
      });
    },
  };
}

/** The response with `id` in a reply body, JSON or SSE. */
function responseIn(contentType, body, id) {
  if (contentType.startsWith('text/event-stream')) {
    for (const event of body.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(l.charCodeAt(5) === 32 ? 6 : 5))
        .join('\n');
      if (!data) continue;
      const msg = JSON.parse(data);
      if (msg.id === id) return msg;
    }
    throw new Error(`no response with id ${id} in the event stream`);
  }
  return JSON.parse(body);
}

function httpAdapter({ url, concurrency, stack }) {
  const u = new URL(url);
  const agent = stack === 'http' ? new http.Agent({ keepAlive: true, maxSockets: concurrency }) : undefined;
  let sessionId;
  let protocolVersion;
  let nextId = 1;

  const headersFor = () => {
    const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (sessionId) h['mcp-session-id'] = sessionId;
    if (protocolVersion) h['mcp-protocol-version'] = protocolVersion;
    return h;
  };
  /** One exchange: resolves `{ status, headers: { get(name) }, body }`. */
  const exchange =
    stack === 'http'
      ? (method, body) =>
          new Promise((resolve, reject) => {
            const headers = headersFor();
            if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
            const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method, agent, headers }, (res) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (c) => (text += c));
              res.on('end', () => resolve({ status: res.statusCode, headers: { get: (n) => res.headers[n] ?? null }, body: text }));
              res.on('error', reject);
            });
            req.on('error', reject);
            req.end(body);
          })
      : async (method, body) => {
          const res = await fetch(u, { method, headers: headersFor(), body });
          return { status: res.status, headers: res.headers, body: await res.text() };
        };
  const request = async (method, params) => {
    const id = nextId++;
    const res = await exchange('POST', JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body.slice(0, 200)}`);
    const msg = responseIn(res.headers.get('content-type') ?? '', res.body, id);
    if (method === 'initialize') sessionId = res.headers.get('mcp-session-id') ?? undefined;
    return new Promise((resolve, reject) => settle({ resolve, reject }, msg));
  };
  return {
    async connect() {
      const init = await request('initialize', INITIALIZE);
      protocolVersion = init.protocolVersion;
      const ack = await exchange('POST', '{"jsonrpc":"2.0","method":"notifications/initialized"}');
      if (ack.status !== 202 && ack.status !== 200) throw new Error(`notifications/initialized: HTTP ${ack.status}`);
      return { protocolVersion, era: 'legacy', session: Boolean(sessionId) };
    },
    callEcho: (text) => request('tools/call', { name: 'echo', arguments: { text } }),
    async close() {
      if (sessionId) await exchange('DELETE').catch(() => {});
      agent?.destroy();
    },
  };
}

await runClient((opts) => (opts.transport === 'stdio' ? stdioAdapter(opts) : httpAdapter(opts)), { stack: 'http' });
