// What an HTTP client costs on Node, apart from any MCP: each client in a process of its own posts a JSON-RPC
// `tools/call` (a 64-byte text argument, 159 bytes in all) to one keep-alive server and reads a small JSON answer, C
// requests in flight; the figure is the client process's CPU per request (utime + stime) over a window after a
// warm-up, medians of alternating rounds. The hop of a gateway pays a client like these on top of a server (README,
// "The hop's cost").
//
//   node bench/http-client-cost.mjs                      # C=8, then C=1; 3 rounds of every client
//   node bench/http-client-cost.mjs --concurrency 8 --rounds 5
//
// Clients: `http.request` with a URL, the header fields as an object and a keep-alive `Agent` (as a plain relay
// would; bench/servers/raw-relay.js passes an options object and a FIFO agent); Switchboard's direct request
// (nodeFetch's internal path for a JSON answer, the header fields as a list); nodeFetch itself (a WHATWG `Response`);
// `globalThis.fetch` (the undici built into Node); and undici's `Pool.request()` when the `undici` package can be
// imported from here: not a dependency of Switchboard, but the conformance suite's dev dependencies bring one into
// node_modules (absent, its row says so). The versions of both undicis are printed.
import { spawn } from 'node:child_process';
import http from 'node:http';

const argv = process.argv.slice(2);
const value = (name) => {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
};
const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(64) } } });
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const WARMUP_MS = 2000;
const WINDOW_MS = 3000;
/** The client process running now, if any (stopped with this process on a signal). */
let current;

if (value('--client') !== undefined) {
  await runClient(value('--client'), Number(value('--port')), Number(value('--concurrency')));
} else if (argv.includes('--server')) {
  const answer = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'x'.repeat(64) }] } });
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) }).end(answer));
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
  process.on('SIGTERM', () => process.exit(0));
} else {
  await orchestrate();
}

async function orchestrate() {
  const rounds = Number(value('--rounds') ?? 3);
  const levels = value('--concurrency') === undefined ? [8, 1] : [Number(value('--concurrency'))];
  if (!Number.isInteger(rounds) || rounds < 1 || !levels.every((c) => Number.isInteger(c) && c > 0)) {
    console.error('usage: node bench/http-client-cost.mjs [--concurrency C] [--rounds N] (positive integers)');
    process.exit(2);
  }
  const kinds = ['http.request', 'direct', 'nodeFetch', 'fetch', 'undici'];
  const server = spawn(process.execPath, [process.argv[1], '--server'], { stdio: ['ignore', 'pipe', 'inherit'] });
  // The server and the client of the moment are this process's children: stopped with it on a signal, too.
  const stopChildren = () => {
    server.kill('SIGTERM');
    current?.kill('SIGTERM');
  };
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) {
    process.once(signal, () => {
      stopChildren();
      process.exit(code);
    });
  }
  let undiciVersion = 'not installed';
  try {
    undiciVersion = (await import('undici/package.json', { with: { type: 'json' } })).default.version;
  } catch {
    // absent: its row says so
  }
  try {
    const port = await new Promise((resolve, reject) => {
      server.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim())));
      server.once('exit', () => reject(new Error('the server exited')));
    });
    console.log(`HTTP client CPU per request (µs, medians of ${rounds} alternating rounds; ${WARMUP_MS} ms warm-up, ${WINDOW_MS} ms window), Node ${process.version} (its fetch: undici ${process.versions.undici}; the undici package: ${undiciVersion})`);
    for (const concurrency of levels) {
      const results = new Map(kinds.map((kind) => [kind, []]));
      for (let round = 0; round < rounds; round++) {
        for (const kind of kinds) results.get(kind).push(await clientRun(kind, port, concurrency));
      }
      for (const [kind, runs] of results) {
        const done = runs.filter((r) => typeof r === 'number').sort((a, b) => a - b);
        const shown = done.length === 0 ? runs[0] : `${done[done.length >> 1].toFixed(1)} µs`;
        console.log(`  C=${concurrency}  ${kind.padEnd(12)} ${shown}`);
      }
    }
  } finally {
    server.kill('SIGTERM');
  }
}

/** One client process; resolves its CPU per request, or the line it printed instead (a client that cannot run). */
function clientRun(kind, port, concurrency) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [process.argv[1], '--client', kind, '--port', String(port), '--concurrency', String(concurrency)], { stdio: ['ignore', 'pipe', 'inherit'] });
    current = child;
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.once('exit', (code) => {
      const line = out.trim();
      if (code !== 0) reject(new Error(`client ${kind} exited with ${code}: ${line}`));
      else resolve(/^[\d.]+$/.test(line) ? Number(line) : line);
    });
  });
}

async function runClient(kind, port, concurrency) {
  const url = `http://127.0.0.1:${port}/mcp`;
  const one = await clientOf(kind, url, port);
  if (typeof one === 'string') {
    process.stdout.write(`${one}\n`);
    return;
  }
  let stop = false;
  let count = 0;
  const worker = async () => {
    while (!stop) {
      const answer = await one();
      if (answer.id !== 1) throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
      count++;
    }
  };
  const workers = Array.from({ length: concurrency }, worker);
  await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
  const count0 = count;
  const cpu0 = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
  const cpu = process.cpuUsage(cpu0);
  const n = count - count0;
  stop = true;
  await Promise.all(workers);
  process.stdout.write(`${((cpu.user + cpu.system) / n).toFixed(2)}\n`);
  process.exit(0);
}

/** The client `kind` as a function making one request and resolving its parsed answer, or why it cannot run. */
async function clientOf(kind, url, port) {
  switch (kind) {
    case 'http.request': {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
      const headers = { ...HEADERS, 'content-length': Buffer.byteLength(BODY) };
      return () =>
        new Promise((resolve, reject) => {
          const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk) => (text += chunk));
            res.on('end', () => resolve(JSON.parse(text)));
          });
          req.on('error', reject);
          req.end(BODY);
        });
    }
    case 'direct': {
      const { createNodeFetch } = await import('@switchboard/mcp/node');
      const { CancellationSource } = await import('@switchboard/jsonrpc');
      const direct = createNodeFetch()[Symbol.for('switchboard.directRequest')];
      const target = new URL(url);
      const headers = Object.entries(HEADERS).flat();
      return async () => {
        const answer = await direct(target, { method: 'POST', headers, body: BODY, abort: new CancellationSource(), maxJsonBytes: 1 << 20 });
        return JSON.parse(answer.json.text);
      };
    }
    case 'nodeFetch': {
      const { createNodeFetch } = await import('@switchboard/mcp/node');
      const fetch = createNodeFetch();
      return async () => (await fetch(url, { method: 'POST', headers: HEADERS, body: BODY })).json();
    }
    case 'fetch':
      return async () => (await fetch(url, { method: 'POST', headers: HEADERS, body: BODY })).json();
    case 'undici': {
      let undici;
      try {
        undici = await import('undici');
      } catch {
        return 'not measured: the undici package is not installed here';
      }
      const pool = new undici.Pool(`http://127.0.0.1:${port}`, { connections: 64 });
      return async () => {
        const response = await pool.request({ path: '/mcp', method: 'POST', headers: HEADERS, body: BODY });
        return JSON.parse(await response.body.text());
      };
    }
    default:
      throw new Error(`unknown client ${kind}`);
  }
}
