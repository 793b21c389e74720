// Loopback preload: `node --require scripts/conformance-shim/loopback.cjs <program>`.
//
// The conformance suite's client-mode mock servers (and other servers run in tests that have no host option) call
// `listen(port)` / `listen({ port })` / `listen()` with no host, which binds every interface. This preload makes
// those calls bind 127.0.0.1 instead, and keeps the bind synchronous: the suite reads `server.address().port` on the
// line after `listen(0)`, and Node binds asynchronously (after a DNS lookup) as soon as a host is passed, so simply
// adding the host would leave `address()` null there. Any other form (a host, a path, a handle, an fd) is passed
// through unchanged. With `LOOPBACK_ANNOUNCE=<word>` in the environment, each such server also writes one line
// `<word> http://127.0.0.1:<port>` to stderr once it listens (the interop tests read the port so).
'use strict';

const net = require('node:net');

const LOOPBACK = '127.0.0.1';
const IPV4 = 4;
const DEFAULT_BACKLOG = 511;
const originalListen = net.Server.prototype.listen;

/**
 * The port of a host-less TCP listen call, or undefined when the call is of another form.
 * @param {unknown[]} args the arguments without a trailing callback
 * @returns {{ port: number, backlog: number } | undefined}
 */
function hostlessPort(args) {
  const [first, second] = args;
  if (first === undefined || first === null) return args.length <= 1 ? { port: 0, backlog: DEFAULT_BACKLOG } : undefined;
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    // listen(port[, backlog]): a second argument that is a string is a host, so not ours.
    if (second !== undefined && typeof second !== 'number') return undefined;
    return { port: Number(first), backlog: typeof second === 'number' ? second : DEFAULT_BACKLOG };
  }
  if (typeof first === 'object' && !Array.isArray(first) && args.length === 1) {
    const o = /** @type {Record<string, unknown>} */ (first);
    if (o.host !== undefined || o.path !== undefined || o.fd !== undefined || o.handle !== undefined || o._handle !== undefined) return undefined;
    if (o.ipv6Only === true || o.reusePort === true || o.signal !== undefined) return undefined;
    const port = o.port === undefined ? 0 : Number(o.port);
    if (!Number.isInteger(port)) return undefined;
    return { port, backlog: typeof o.backlog === 'number' ? o.backlog : DEFAULT_BACKLOG };
  }
  return undefined;
}

/**
 * The two internals of `net.Server` used here: its bind step and its handle (set once listening).
 * @param {import('node:net').Server} server
 * @returns {{ _listen2?: (address: string, port: number, family: number, backlog: number, fd: undefined, flags: number) => void, _handle?: unknown }}
 */
function internalsOf(server) {
  return /** @type {any} */ (server);
}

/** @this {import('node:net').Server} @param {...unknown} args */
function listenOnLoopback(...args) {
  const callback = typeof args.at(-1) === 'function' ? /** @type {() => void} */ (args.pop()) : undefined;
  const plan = hostlessPort(args);
  const internals = internalsOf(this);
  if (plan === undefined || typeof internals._listen2 !== 'function' || internals._handle) {
    return callback ? originalListen.call(this, ...args, callback) : originalListen.apply(this, args);
  }
  if (callback) this.once('listening', callback);
  // For a program that prints the port it was asked for (`0`), not the one it got: with LOOPBACK_ANNOUNCE=<word>,
  // one line `<word> http://127.0.0.1:<port>` goes to stderr once it listens.
  const announce = process.env.LOOPBACK_ANNOUNCE;
  if (announce) this.once('listening', () => process.stderr.write(`${announce} http://${LOOPBACK}:${/** @type {import('node:net').AddressInfo} */ (this.address()).port}\n`));
  // Node's own bind step for an already-resolved address: synchronous; 'listening' (or 'error') is emitted on the
  // next tick, as with a host-less listen.
  internals._listen2(LOOPBACK, plan.port, IPV4, plan.backlog, undefined, 0);
  return this;
}

net.Server.prototype.listen = listenOnLoopback;
