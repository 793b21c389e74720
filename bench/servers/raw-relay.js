// The gateway benchmark's floor: the least a Node process can do to stand between a Streamable HTTP client and an
// MCP server, in plain Node. It is what `bench/gateway.mjs` compares the proxy's hop with, so the hop's cost can be
// split into what any Node relay pays on this machine (a second transport: its reads, writes and wake-ups) and
// what the proxy adds on top (MCP semantics: policy, the era bridge, the engine on both sides).
//
//   node bench/servers/raw-relay.js --port <N> --upstream-url <URL>   an HTTP relay: each POST (DELETE, GET) is sent
//        on to the upstream through a keep-alive `http.Agent`, its body and the MCP headers copied byte for byte,
//        the answer copied back; nothing is parsed
//   node bench/servers/raw-relay.js --port <N> --upstream-stdio       a stdio relay: the echo server
//        (switchboard.js --stdio) is its child; each POSTed message is parsed, given an id of the relay's own,
//        written as one line; the child's line is parsed, given the client's id back and answered as JSON.
//        The relay opens one session on the child at start (initialize) and answers the clients' `initialize`
//        from it; a 2026-07-28 request goes to the child as it came (the echo server is dual-era on stdio)
//
// Unlike the proxy it bridges no era, checks no policy and never answers with SSE: a floor, not a gateway.
// Prints `BENCH_READY <url>` on stderr once it accepts connections; stops its child (by PID) on exit.
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { announceReady, installShutdown, parseUpstreamArgs } from './_common.js';

const { port, stdio, url: upstreamUrl } = parseUpstreamArgs('usage: node bench/servers/raw-relay.js --port <N> (--upstream-stdio | --upstream-url <URL>)');

/** The MCP request headers a relay passes on (Streamable HTTP, both eras). */
const PASSED = ['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'last-event-id'];

function readBody(req, done) {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
}

function httpRelay(target) {
  const u = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64, scheduling: 'fifo' });
  return (req, res) => {
    readBody(req, (body) => {
      const headers = { 'content-length': body.length };
      for (const name of PASSED) if (req.headers[name] !== undefined) headers[name] = req.headers[name];
      const up = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: req.method, agent, headers }, (ur) => {
        readBody(ur, (answer) => {
          const out = { 'content-length': answer.length };
          for (const name of ['content-type', 'mcp-session-id']) if (ur.headers[name] !== undefined) out[name] = ur.headers[name];
          res.writeHead(ur.statusCode ?? 502, out);
          res.end(answer);
        });
      });
      up.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      up.end(body);
    });
  };
}

/** `onReady`: called once the child's session is open (its initialize answered). */
function stdioRelay(onReady) {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'switchboard.js');
  const child = spawn(process.execPath, [script, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const pending = new Map(); // relay id → { res, id }
  let nextId = 1;
  let initializeResult;
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text) => {
    buffered += text;
    let at;
    while ((at = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      const msg = JSON.parse(line);
      const waiting = pending.get(msg.id);
      if (waiting === undefined) continue; // a notification: nobody asked
      pending.delete(msg.id);
      if (waiting.res === undefined) {
        initializeResult = msg.result;
        onReady();
        continue;
      }
      msg.id = waiting.id;
      const text = JSON.stringify(msg);
      waiting.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      waiting.res.end(text);
    }
  });
  const send = (msg) => child.stdin.write(`${JSON.stringify(msg)}\n`);
  pending.set(0, { res: undefined, id: 0 });
  send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-relay', version: '1.0.0' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const handler = (req, res) => {
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    readBody(req, (body) => {
      const msg = JSON.parse(body.toString('utf8'));
      if (msg.id === undefined) return void res.writeHead(202).end(); // a notification: the child's session is already open
      if (msg.method === 'initialize') {
        const text = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: initializeResult });
        return void res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'relay', 'content-length': Buffer.byteLength(text) }).end(text);
      }
      const id = nextId++;
      pending.set(id, { res, id: msg.id });
      msg.id = id;
      send(msg);
    });
  };
  return { handler, stop: () => child.kill() };
}

const listen = () => server.listen(port, '127.0.0.1', () => announceReady(`http://127.0.0.1:${server.address().port}/mcp`));
const relay = stdio ? stdioRelay(listen) : { handler: httpRelay(upstreamUrl), stop: () => {} };
const server = http.createServer({ keepAliveTimeout: 5000 }, (req, res) => relay.handler(req, res));
if (!stdio) listen();
installShutdown(async () => {
  relay.stop();
  await new Promise((resolve) => server.close(resolve));
});
