// The load generator: one client, in plain Node, speaking raw JSON-RPC to every server alike.
//
// It runs inside the orchestrator process (bench/run.mjs), which does nothing else while a cell is
// measured besides sampling /proc every 20 ms. Two wire clients share one driver:
//   - StdioClient: the server is a child process; newline-delimited JSON on its stdin/stdout; requests are
//     pipelined (C in flight), replies matched by id; the writes produced while handling one chunk of
//     replies are coalesced into one write.
//   - HttpClient: Streamable HTTP on 127.0.0.1 through a keep-alive http.Agent with C sockets; each POST
//     carries one request; the reply is read as application/json or as text/event-stream.
// Both speak either era: '2025-11-25' (the legacy era: initialize handshake first, then a session) or
// '2026-07-28' (the modern era: no handshake, the `_meta` envelope on every request and, on HTTP, the
// request metadata headers MCP-Protocol-Version / Mcp-Method / Mcp-Name on every POST).
// Every reply is checked: matching id, a `result` with content[0] = { type: 'text', text: <exactly the text
// sent> } and no isError; a modern reply must also say `resultType: "complete"` and carry the server's
// identity in `_meta`. Each request's text is unique (it starts with its id), so a cross-wired reply fails.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export const PROTOCOL_VERSION = '2025-11-25';
const CLIENT_INFO = { name: 'switchboard-bench', version: '1.0.0' };
const INITIALIZE_PARAMS = { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO };
const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}';

export const MODERN_PROTOCOL_VERSION = '2026-07-28';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
const MODERN_META = `"_meta":{"io.modelcontextprotocol/protocolVersion":"${MODERN_PROTOCOL_VERSION}","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":${JSON.stringify(CLIENT_INFO)}}`;

// Plain ASCII that needs no JSON escaping, so the request can be assembled by concatenation.
const FILL = 'The quick brown fox jumps over the lazy dog, 0123456789; '.repeat(400);

/** Builds the echo request text for id `id`: exactly `size` bytes, starting with `<id>:`. */
export function echoText(id, size) {
  const head = `${id}:`;
  return size > head.length ? head + FILL.slice(0, size - head.length) : head;
}

export function echoRequest(id, text, delayMs) {
  const extra = delayMs ? `,"delayMs":${delayMs}` : '';
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"${text}"${extra}}}}`;
}

/** A 2026-07-28 tools/call echo request: the same call with the per-request `_meta` envelope in `params`. */
export function modernEchoRequest(id, text, delayMs) {
  const extra = delayMs ? `,"delayMs":${delayMs}` : '';
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"${text}"${extra}},${MODERN_META}}}`;
}

/**
 * Returns undefined when `msg` is the correct reply for `text`, else a short reason. `modern`: the reply to a
 * 2026-07-28 request, which must also carry `resultType: "complete"` (MCP 2026-07-28 basic/index.mdx
 * "ResultType") and the server's identity (MCP 2026-07-28 basic/index.mdx "_meta": a SHOULD there, which
 * every server measured here does).
 */
export function checkEcho(msg, text, modern = false) {
  if (!msg || typeof msg !== 'object') return 'no message';
  if (msg.error) return `error ${msg.error.code}: ${msg.error.message}`;
  const r = msg.result;
  if (!r || !Array.isArray(r.content)) return 'no result.content';
  if (r.isError) return `isError: ${JSON.stringify(r.content).slice(0, 200)}`;
  if (modern) {
    if (r.resultType !== 'complete') return `resultType ${JSON.stringify(r.resultType)}, not "complete"`;
    const info = r._meta && r._meta[SERVER_INFO_KEY];
    if (!info || typeof info.name !== 'string') return 'no _meta serverInfo';
  }
  const c = r.content[0];
  if (!c || c.type !== 'text') return 'content[0] is not text';
  if (c.text !== text) return `text mismatch (${String(c.text).length} vs ${text.length} bytes)`;
  return undefined;
}

// ---------------------------------------------------------------------------------------------- stdio

export class StdioClient {
  /**
   * @param handle a spawnServer() handle started with --stdio
   * @param protocol '2025-11-25' (initialize handshake, then a session) or '2026-07-28' (no handshake; every
   *   request carries the `_meta` envelope)
   */
  constructor(handle, { protocol = PROTOCOL_VERSION } = {}) {
    this.handle = handle;
    this.modern = protocol === MODERN_PROTOCOL_VERSION;
    this.stdin = handle.child.stdin;
    this.pending = new Map(); // id → callback(err, msg)
    this.out = [];
    this.flushScheduled = false;
    this.closed = false;
    this.onUnmatched = undefined;
    let buf = '';
    const stdout = handle.child.stdout;
    stdout.setEncoding('utf8');
    stdout.on('data', (chunk) => {
      buf += chunk;
      let start = 0;
      let nl;
      while ((nl = buf.indexOf('\n', start)) !== -1) {
        const line = buf.slice(start, nl);
        start = nl + 1;
        if (line.length > 0) this._onLine(line);
      }
      buf = start === buf.length ? '' : buf.slice(start);
    });
    handle.child.on('exit', () => this._failAll(new Error(`server exited (${handle.exitCode})`)));
  }
  _onLine(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      this.unparsable = (this.unparsable || 0) + 1;
      return;
    }
    if (msg.method !== undefined) {
      // A server→client request or notification: politely refuse requests, ignore notifications.
      if (msg.id !== undefined) this.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } }));
      return;
    }
    const cb = this.pending.get(msg.id);
    if (cb === undefined) {
      if (this.onUnmatched) this.onUnmatched(msg);
      return;
    }
    this.pending.delete(msg.id);
    cb(undefined, msg);
  }
  _failAll(err) {
    this.closed = true;
    const cbs = [...this.pending.values()];
    this.pending.clear();
    for (const cb of cbs) cb(err, undefined);
  }
  write(line) {
    this.out.push(line);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(() => {
        this.flushScheduled = false;
        const text = this.out.join('\n') + '\n';
        this.out = [];
        if (!this.closed) this.stdin.write(text);
      });
    }
  }
  echoRequest(id, text, delayMs) {
    return this.modern ? modernEchoRequest(id, text, delayMs) : echoRequest(id, text, delayMs);
  }
  /** Sends one request line with id `id`; `cb(err, msg)` gets the matching reply. */
  call(id, line, cb) {
    if (this.closed) return void queueMicrotask(() => cb(new Error('closed')));
    this.pending.set(id, cb);
    this.write(line);
  }
  request(id, method, params, timeoutMs = 15000) {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method} timed out`));
      }, timeoutMs);
      this.call(id, JSON.stringify({ jsonrpc: '2.0', id, method, params }), (err, msg) => {
        clearTimeout(t);
        if (err) reject(err);
        else if (msg.error) reject(new Error(`${method}: ${msg.error.code} ${msg.error.message}`));
        else resolve(msg.result);
      });
    });
  }
  /** initialize + notifications/initialized (legacy era); nothing in the modern era, which has no handshake. */
  async handshake(timeoutMs) {
    if (this.modern) return undefined;
    const result = await this.request('init', 'initialize', INITIALIZE_PARAMS, timeoutMs);
    this.write(INITIALIZED);
    return result;
  }
  close() {
    this.closed = true;
  }
}

// ----------------------------------------------------------------------------------------------- HTTP

/** Minimal but correct text/event-stream parser: returns the `data` of every dispatched event. */
export function parseSse(text) {
  const events = [];
  let data = [];
  let hasData = false;
  const lines = text.split(/\r\n|\r|\n/);
  // The last element is what follows the final line break: an unterminated line, dropped per the spec.
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i];
    if (line === '') {
      if (hasData) events.push(data.join('\n'));
      data = [];
      hasData = false;
      continue;
    }
    if (line.charCodeAt(0) === 58 /* ':' comment */) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') continue; // event, id, retry: not needed to find the reply
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    data.push(value);
    hasData = true;
  }
  return events; // an event not closed by a blank line is never dispatched
}

export class HttpClient {
  /**
   * @param protocol '2025-11-25' (initialize handshake, Mcp-Session-Id when the server gives one) or
   *   '2026-07-28' (no handshake; every request carries the `_meta` envelope and the request metadata headers
   *   MCP-Protocol-Version, Mcp-Method, Mcp-Name: MCP 2026-07-28 basic/transports/streamable-http.mdx
   *   "Request Metadata Headers")
   */
  constructor(url, { sockets = 16, protocol = PROTOCOL_VERSION } = {}) {
    const u = new URL(url);
    this.url = u;
    this.modern = protocol === MODERN_PROTOCOL_VERSION;
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets, scheduling: 'fifo' });
    this.sessionId = undefined;
    this.protocolVersion = undefined;
    this.stats = { json: 0, sse: 0 };
  }
  /** One POST; cb(err, status, headers, body). */
  post(body, cb, { sessionId = this.sessionId, protocolVersion = this.protocolVersion } = {}) {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': Buffer.byteLength(body),
    };
    if (sessionId) headers['mcp-session-id'] = sessionId;
    if (protocolVersion) headers['mcp-protocol-version'] = protocolVersion;
    if (this.modern) {
      headers['mcp-protocol-version'] = MODERN_PROTOCOL_VERSION;
      headers['mcp-method'] = 'tools/call';
      headers['mcp-name'] = 'echo';
    }
    const req = http.request(
      { host: this.url.hostname, port: this.url.port, path: this.url.pathname, method: 'POST', agent: this.agent, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => cb(undefined, res.statusCode, res.headers, text));
        res.on('error', (e) => cb(e));
      },
    );
    req.on('error', (e) => cb(e));
    req.end(body);
  }
  /** Extracts the JSON-RPC response with `id` from a reply body (JSON or SSE). */
  extract(status, headers, text, id) {
    const ct = headers['content-type'] || '';
    if (ct.startsWith('text/event-stream')) {
      this.stats.sse++;
      for (const data of parseSse(text)) {
        if (data === '') continue;
        const m = JSON.parse(data);
        if (m && m.id === id && m.method === undefined) return m;
      }
      throw new Error(`HTTP ${status}: no response with id ${id} in the SSE stream`);
    }
    if (ct.startsWith('application/json')) {
      this.stats.json++;
      const m = JSON.parse(text);
      if (Array.isArray(m)) return m.find((x) => x && x.id === id);
      return m;
    }
    throw new Error(`HTTP ${status} ${ct || '(no content-type)'}: ${text.slice(0, 200)}`);
  }
  echoRequest(id, text, delayMs) {
    return this.modern ? modernEchoRequest(id, text, delayMs) : echoRequest(id, text, delayMs);
  }
  call(id, body, cb) {
    this.post(body, (err, status, headers, text) => {
      if (err) return cb(err);
      let msg;
      try {
        if (status !== 200) throw new Error(`HTTP ${status}: ${text.slice(0, 200)}`);
        msg = this.extract(status, headers, text, id);
      } catch (e) {
        return cb(e);
      }
      cb(undefined, msg);
    });
  }
  postAsync(body, opts) {
    return new Promise((resolve, reject) => this.post(body, (err, status, headers, text) => (err ? reject(err) : resolve({ status, headers, text })), opts));
  }
  /**
   * Opens a 2025-era session: initialize (→ Mcp-Session-Id, if the server is sessionful) and
   * notifications/initialized (→ 202). Returns { sessionId, protocolVersion } without adopting it.
   */
  async openSession() {
    const init = await this.postAsync(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INITIALIZE_PARAMS }), { sessionId: null, protocolVersion: null });
    if (init.status !== 200) throw new Error(`initialize: HTTP ${init.status}: ${init.text.slice(0, 300)}`);
    const msg = this.extract(init.status, init.headers, init.text, 0);
    if (!msg || !msg.result) throw new Error(`initialize: ${JSON.stringify(msg).slice(0, 300)}`);
    const sessionId = init.headers['mcp-session-id'];
    const protocolVersion = msg.result.protocolVersion;
    const ack = await this.postAsync(INITIALIZED, { sessionId, protocolVersion });
    if (ack.status !== 202 && ack.status !== 200) throw new Error(`notifications/initialized: HTTP ${ack.status}: ${ack.text.slice(0, 300)}`);
    return { sessionId, protocolVersion };
  }
  async handshake() {
    if (this.modern) return { sessionId: undefined, protocolVersion: MODERN_PROTOCOL_VERSION }; // nothing to open
    const s = await this.openSession();
    this.sessionId = s.sessionId;
    this.protocolVersion = s.protocolVersion;
    return s;
  }
  async close() {
    if (this.sessionId) {
      await new Promise((resolve) => {
        const req = http.request(
          { host: this.url.hostname, port: this.url.port, path: this.url.pathname, method: 'DELETE', agent: this.agent, headers: { 'mcp-session-id': this.sessionId, 'mcp-protocol-version': this.protocolVersion } },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', resolve);
        req.setTimeout(2000, () => req.destroy());
        req.end();
      });
    }
    this.agent.destroy();
  }
}

// --------------------------------------------------------------------------------------------- driver

/**
 * Keeps `concurrency` echo calls in flight until `durationMs` has passed or `maxRequests` were issued,
 * then waits for the stragglers (bounded by `drainTimeoutMs`). Returns counts, elapsed time and, when
 * `record`, the latency of every call.
 */
export function drive(client, { concurrency, payloadBytes, durationMs, maxRequests, record = true, nextId, delayMs = 0, drainTimeoutMs = 30000 }) {
  return new Promise((resolve) => {
    const lat = record ? new Float64Array(maxRequests) : undefined;
    let issued = 0;
    let completed = 0;
    let failures = 0;
    let inflight = 0;
    let firstFailure;
    let stopIssuing = false;
    let finished = false;
    const t0 = performance.now();
    const deadline = t0 + durationMs;
    let tLast = t0;
    const finish = (timedOut) => {
      if (finished) return;
      finished = true;
      clearTimeout(drainTimer);
      if (timedOut) {
        failures += inflight;
        if (!firstFailure) firstFailure = `${inflight} calls unanswered after ${drainTimeoutMs} ms`;
      }
      resolve({ issued, completed, failures, firstFailure, elapsedMs: tLast - t0, latencies: lat ? lat.subarray(0, completed) : undefined, nextId });
    };
    let drainTimer;
    const startOne = () => {
      const id = nextId++;
      const text = echoText(id, payloadBytes);
      const sent = performance.now();
      issued++;
      inflight++;
      client.call(id, client.echoRequest(id, text, delayMs), (err, msg) => {
        const now = performance.now();
        inflight--;
        if (err) {
          failures++;
          if (!firstFailure) firstFailure = err.message;
          if (failures >= 100) stopIssuing = true; // a dead server: stop, don't spin
        } else {
          const bad = checkEcho(msg, text, client.modern);
          if (bad) {
            failures++;
            if (!firstFailure) firstFailure = bad;
          } else if (lat) lat[completed] = now - sent;
          if (!bad) completed++;
        }
        tLast = now;
        if (!drainTimer && (stopIssuing || issued >= maxRequests || now >= deadline)) {
          stopIssuing = true;
          drainTimer = setTimeout(() => finish(true), drainTimeoutMs);
        }
        if (!stopIssuing) startOne();
        else if (inflight === 0) finish(false);
      });
    };
    const first = Math.min(concurrency, maxRequests);
    for (let i = 0; i < first; i++) startOne();
  });
}

/** Sorted-copy percentile (p in 0..1) of a Float64Array. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[idx];
}
