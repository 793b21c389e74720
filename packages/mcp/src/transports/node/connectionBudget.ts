/**
 * `serveHttp`'s connection budget: `maxConnections` in total and `maxConnectionsPerAddress` per caller, with a
 * reclaim order instead of refusing a newcomer while someone holds every slot.
 *
 * When the budget is full a new connection is served by closing one held connection, chosen in this order:
 * 1. a half-sent request (headers or body still arriving, past a short fresh window), oldest first;
 * 2. an idle keep-alive connection (its answer sent, no new request), oldest first;
 * 3. an open SSE answer (a `GET` stream, a `subscriptions/listen` stream, a long call's stream), longest held first;
 * 4. a request whose answer is being worked on, oldest first;
 * and within each class from the caller holding most connections. A connection younger than the fresh window that
 * has not finished its request is never taken (it is somebody's newcomer). A caller past its share gives back one
 * of its own the same way, or is refused. A cut SSE answer is not a cancellation (2025 revisions): its client
 * resumes with `Last-Event-ID`.
 *
 * The caller of a connection is its peer address until its request arrives, then {@link callerKey} (behind a trusted
 * proxy: the client the proxy names). The host's own addresses (`127.0.0.1`, `::1`) have no share while no proxy is
 * trusted (a local client, or an unconfigured proxy): they are still reclaimed from when they hold most.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { addressKey, callerKey } from '../http/server/callerIdentity.js';
import type { ProxyTrust } from '../http/server/callerIdentity.js';
import { peerAddress } from '../http/server/inputOutput.js';

/** {@link ConnectionBudget} settings (validated by `serveHttp`). */
export interface ConnectionBudgetInit {
  /** Open connections at most (`Infinity`: no cap). */
  readonly max: number;
  /** Open connections at most per caller (`Infinity`: no share). */
  readonly perCaller: number;
  readonly trust: ProxyTrust | undefined;
  /** How long (ms) a new connection or request is not counted as half-sent. */
  readonly freshMs: number;
  /** Reports a refused or reclaimed connection (rate-limited by the caller). */
  readonly report: (what: 'refused' | 'reclaimed', limit: string) => void;
}

/** One held connection. */
interface Held {
  readonly socket: Socket;
  caller: string;
  readonly openedAt: number;
  /** The request being served on it, until its answer finished. */
  req: IncomingMessage | undefined;
  res: ServerResponse | undefined;
  /** When the current request began, or the last answer finished. */
  since: number;
  served: number;
}

/** The host's own addresses, exempt from the share while no proxy is trusted. */
const SELF = new Set(['address:127.0.0.1', 'address:::1']);

const NEVER = 99;

/** @internal See the module documentation. */
export class ConnectionBudget {
  readonly #init: ConnectionBudgetInit;
  readonly #held = new Map<Socket, Held>();
  readonly #callers = new Map<string, number>();

  constructor(init: ConnectionBudgetInit) {
    this.#init = init;
  }

  /** Connections held now. */
  get size(): number {
    return this.#held.size;
  }

  /** A new connection (the server's `connection` event): admits it, reclaiming one if needed, or destroys it. */
  readonly accept = (socket: Socket): void => {
    const peer = peerAddress(socket.remoteAddress);
    const caller = peer === undefined ? '' : addressKey(peer);
    const now = Date.now();
    // A trusted proxy's connection is counted for the proxy until its request names the client.
    const proxied = peer !== undefined && this.#init.trust?.(peer, 0) === true;
    if (!proxied && !this.#exempt(caller) && (this.#callers.get(caller) ?? 0) >= this.#init.perCaller) {
      if (!this.#reclaim(now, caller, undefined)) {
        socket.destroy();
        this.#init.report('refused', `maxConnectionsPerAddress (${this.#init.perCaller})`);
        return;
      }
      this.#init.report('reclaimed', `maxConnectionsPerAddress (${this.#init.perCaller})`);
    }
    if (this.#held.size >= this.#init.max) {
      if (!this.#reclaim(now, undefined, undefined)) {
        socket.destroy();
        this.#init.report('refused', `maxConnections (${this.#init.max})`);
        return;
      }
      this.#init.report('reclaimed', `maxConnections (${this.#init.max})`);
    }
    const held: Held = { socket, caller, openedAt: now, req: undefined, res: undefined, since: now, served: 0 };
    this.#held.set(socket, held);
    this.#count(caller, 1);
    socket.once('close', () => this.#forget(held));
  };

  /**
   * A request on a held connection, before the handler sees it: names its caller (after `trustProxy`) and enforces
   * the caller's share. Returns `false` when the request was refused (answered here, the connection closing).
   */
  request(req: IncomingMessage, res: ServerResponse): boolean {
    const held = this.#held.get(req.socket);
    if (held === undefined) return true;
    const now = Date.now();
    held.req = req;
    held.res = res;
    held.since = now;
    const done = (): void => {
      if (held.res !== res) return;
      held.req = undefined;
      held.res = undefined;
      held.served++;
      held.since = Date.now();
    };
    // A response always ends with 'close' (a tick after 'finish', or when the connection drops first): one listener.
    res.on('close', done);
    const peer = peerAddress(req.socket.remoteAddress);
    const caller = callerKey({ authInfo: (req as { auth?: unknown }).auth, remoteAddress: peer, header: (name) => headerOf(req, name) }, this.#init.trust) ?? '';
    if (caller !== held.caller) {
      this.#count(held.caller, -1);
      held.caller = caller;
      this.#count(caller, 1);
    }
    if (this.#exempt(caller) || (this.#callers.get(caller) ?? 0) <= this.#init.perCaller) return true;
    if (this.#reclaim(now, caller, held)) {
      this.#init.report('reclaimed', `maxConnectionsPerAddress (${this.#init.perCaller})`);
      return true;
    }
    this.#init.report('refused', `maxConnectionsPerAddress (${this.#init.perCaller})`);
    // RFC 6585 §4: 429 for a caller over its share; the connection closes after the answer.
    res.shouldKeepAlive = false;
    res.writeHead(429, { 'content-type': 'application/json', connection: 'close' });
    res.end('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Too Many Requests: too many connections for this caller"}}');
    return false;
  }

  #exempt(caller: string): boolean {
    return this.#init.perCaller === Infinity || caller === '' || (this.#init.trust === undefined && SELF.has(caller));
  }

  #count(caller: string, delta: number): void {
    const n = (this.#callers.get(caller) ?? 0) + delta;
    if (n <= 0) this.#callers.delete(caller);
    else this.#callers.set(caller, n);
  }

  #forget(held: Held): void {
    if (this.#held.get(held.socket) !== held) return;
    this.#held.delete(held.socket);
    this.#count(held.caller, -1);
  }

  /** The reclaim class of a held connection (see the module documentation); {@link NEVER} when it is not taken. */
  #classOf(held: Held, now: number): number {
    const { req, res } = held;
    if (req === undefined || res === undefined) {
      if (held.served > 0) return 1;
      return now - held.openedAt >= this.#init.freshMs ? 0 : NEVER;
    }
    if (!req.complete) return now - held.since >= this.#init.freshMs ? 0 : NEVER;
    if (res.headersSent && String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) return 2;
    return 3;
  }

  /**
   * Closes the connection to reclaim (of `caller` when given; never `except`) and returns whether one was found.
   * The slot is free at once.
   */
  #reclaim(now: number, caller: string | undefined, except: Held | undefined): boolean {
    let victim: Held | undefined;
    let bestClass = NEVER;
    let bestCount = 0;
    let bestSince = Infinity;
    for (const held of this.#held.values()) {
      if (held === except || (caller !== undefined && held.caller !== caller)) continue;
      const cls = this.#classOf(held, now);
      if (cls === NEVER || cls > bestClass) continue;
      const count = this.#callers.get(held.caller) ?? 0;
      const since = cls === 0 && held.req === undefined ? held.openedAt : held.since;
      if (cls < bestClass || count > bestCount || (count === bestCount && since < bestSince)) {
        victim = held;
        bestClass = cls;
        bestCount = count;
        bestSince = since;
      }
    }
    if (victim === undefined) return false;
    this.#forget(victim);
    victim.socket.destroy();
    return true;
  }
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return value === undefined ? undefined : Array.isArray(value) ? value.join(', ') : value;
}
