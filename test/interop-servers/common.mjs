// What the interop test servers share: one command line, one ready line, one event record, and the fixture data
// every server registers (so one test body checks any of them).
//
// Every server in this folder is started as
//   node test/interop-servers/<name>.mjs --stdio | --port <N>
// (our own server, switchboard.mjs, also takes `--revisions all|legacy|modern`).
// Over HTTP it binds 127.0.0.1 only and prints `INTEROP_READY http://127.0.0.1:<port>/mcp` on stderr once it
// accepts connections (so `--port 0` works, and a restart can ask for the same port again). When
// INTEROP_RECORD names a file, the server appends one JSON line per event the test needs to see from the server's
// side: `{"event":"started","pid":…}` at start, `{"event":"began","tool":"slow",…}` when a slow call starts,
// `{"event":"cancelled","tool":"slow",…}` when it is cancelled, `{"event":"finished","tool":"slow",…}` when it runs
// to its end.
import { appendFileSync } from 'node:fs';
import http from 'node:http';
import process from 'node:process';
import { sendError } from '../../bench/servers/_common.js';

// The HTTP plumbing the benchmark servers already have (reading a body, a JSON-RPC error answer, a sleep).
export { readBody, sendError, sleep } from '../../bench/servers/_common.js';

/** How many tools, resources and prompts each server registers: more than one page where the SDK paginates. */
export const FIXTURE = {
  /** Filler tools registered beside the feature tools (`filler_01` …). */
  fillerTools: 9,
  /** Static resources `interop://static/1` … */
  resources: 7,
  /** Filler prompts registered beside `greet` (`prompt_01` …). */
  fillerPrompts: 6,
  /** Page size where the SDK can be told one. */
  pageSize: 4,
};

/** The feature tools every server registers, by name (the test reads their behaviour from here). */
export const TOOL_NAMES = ['echo', 'region', 'progress', 'sample', 'elicit', 'slow'];
/** The `region` tool's argument carries `x-mcp-header: Region`: 2026-07-28 clients mirror it as `Mcp-Param-Region`. */
export const REGION_HEADER = 'Region';

export const fillerToolNames = () => Array.from({ length: FIXTURE.fillerTools }, (_, i) => `filler_${String(i + 1).padStart(2, '0')}`);
export const fillerPromptNames = () => Array.from({ length: FIXTURE.fillerPrompts }, (_, i) => `prompt_${String(i + 1).padStart(2, '0')}`);
export const resourceUris = () => Array.from({ length: FIXTURE.resources }, (_, i) => `interop://static/${i + 1}`);
/** The text of a static resource. */
export const resourceText = (uri) => `text of ${uri}`;
/** The template every server registers, and the text of one of its resources. */
export const ITEM_TEMPLATE = 'interop://item/{id}';
export const itemText = (id) => `item ${id}`;
/** The elicitation form of the `elicit` tool. */
export const NAME_FORM = { type: 'object', properties: { name: { type: 'string', description: 'Your name' } }, required: ['name'] };

/**
 * `--stdio` or `--port <N>`, and `--revisions all|legacy|modern` where the server can be told which revisions it
 * serves (anything else exits 2).
 */
export function parseArgs(argv = process.argv.slice(2), { revisions = false } = {}) {
  const opts = { stdio: false, port: undefined, revisions: 'all' };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--stdio') opts.stdio = true;
    else if (argv[i] === '--port') opts.port = Number(argv[++i]);
    else if (argv[i] === '--revisions' && revisions) opts.revisions = argv[++i];
    else fail(`unknown flag ${argv[i]}`);
  }
  if (opts.stdio === (opts.port !== undefined)) fail('give exactly one of --stdio or --port <N>');
  if (opts.port !== undefined && !(Number.isInteger(opts.port) && opts.port >= 0 && opts.port < 65536)) fail('bad --port');
  return opts;
}

function fail(msg) {
  process.stderr.write(`${process.argv[1]}: ${msg}\n`);
  process.exit(2);
}

/** Appends one event to the INTEROP_RECORD file (nothing when it is unset). */
export function record(event) {
  const file = process.env.INTEROP_RECORD;
  if (file) appendFileSync(file, `${JSON.stringify({ ...event, pid: process.pid })}\n`);
}

/**
 * The slow tool's body: waits `ms`, or stops early when `signal` aborts; either way it records what happened.
 * @param {{ ms: number, signal?: AbortSignal, server: string }} opts
 */
export function slowWork({ ms, signal, server }) {
  record({ event: 'began', tool: 'slow', server });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      record({ event: 'finished', tool: 'slow', server });
      resolve(`slept ${ms} ms`);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      record({ event: 'cancelled', tool: 'slow', server, reason: String(signal?.reason ?? '') });
      resolve('cancelled');
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Serves `handle` on node:http at `/mcp` on 127.0.0.1 (404 elsewhere), prints the ready line, and stops on
 * SIGTERM/SIGINT (closing every connection, so a restart can bind the same port at once).
 * @param {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void>} handle
 * @param {{ port: number }} opts
 * @param {() => unknown} [onClose]
 */
export function listenMcp(handle, { port }, onClose = () => {}) {
  const server = http.createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') return sendError(res, 404, -32000, 'Not found');
    handle(req, res).catch((error) => {
      process.stderr.write(`request failed: ${String(error?.stack ?? error)}\n`);
      if (!res.headersSent) sendError(res, 500, -32603, 'Internal server error');
      else res.end();
    });
  });
  server.listen(port, '127.0.0.1', () => {
    record({ event: 'started', transport: 'http' });
    process.stderr.write(`INTEROP_READY http://127.0.0.1:${server.address().port}/mcp\n`);
  });
  onShutdown(async () => {
    await onClose();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(() => resolve()));
  });
}

/**
 * Records the start of a stdio server and exits on SIGTERM/SIGINT. What happens when stdin ends is left to the
 * SDK (some keep running: the client's shutdown has to escalate to a signal).
 */
export function stdioStarted(close = () => {}) {
  record({ event: 'started', transport: 'stdio' });
  onShutdown(close);
}

function onShutdown(close) {
  process.on('SIGTERM', () => exitAfter(close));
  process.on('SIGINT', () => exitAfter(close));
}

let exiting = false;
function exitAfter(close) {
  if (exiting) return;
  exiting = true;
  setTimeout(() => process.exit(0), 1000).unref();
  Promise.resolve()
    .then(close)
    .catch(() => {})
    .finally(() => process.exit(0));
}
