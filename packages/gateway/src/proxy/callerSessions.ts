/**
 * Upstream sessions per front caller (`sessionPerCaller`). By default one upstream session serves every front
 * client; an upstream that keeps state per session (a login, a working directory, an open document, the answer to
 * its last question) then mixes its callers' state. With `sessionPerCaller` each front caller gets an upstream
 * session of its own, opened on its first request with the proxy's connector and client options:
 * - the caller is the authenticated identity (the request's `authInfo`: its `subject`, the user, when it names
 *   one, else its `clientId`), else the front session (`session:<id>`, a session-era client); a 2026-07-28 request with neither has no session to follow
 *   (MCP 2026-07-28 basic/versioning.mdx: the modern era is stateless) and is served on the shared session;
 * - bounded: at most `maxSessions` at once; a new caller past it closes the least recently used session that has no
 *   request in flight, and is refused (-32603, "Too many upstream sessions in use") when every one is busy;
 * - a session idle for `idleTimeoutMs` (no request in flight) is closed, and so is the session of a front session
 *   that closes; a caller that comes back opens a new one.
 * The shared session still reads the catalog (every caller sees the same tools), follows list changes and resource
 * subscriptions, and runs upstream tasks; a caller's session serves its tools, reads and prompts, and its questions
 * and logs go to that caller's own request in flight.
 */
import type { Logger } from '@switchboard/jsonrpc';
import { McpError, McpErrorCode } from '@switchboard/mcp';
import type { ClientConnector, McpClient } from '@switchboard/mcp/client';
import type { RequestContext } from '@switchboard/mcp/server';

/** Default of {@link SessionPerCallerOptions.maxSessions}. */
export const DEFAULT_MAX_CALLER_SESSIONS = 100;
/** Default of {@link SessionPerCallerOptions.idleTimeoutMs}, in ms. */
export const DEFAULT_CALLER_SESSION_IDLE_MS = 300_000;

/** How upstream sessions per front caller are held (see `ProxyServerOptions.sessionPerCaller`). */
export interface SessionPerCallerOptions {
  /** The most caller sessions open at once (the shared session not counted). @default 100 */
  readonly maxSessions?: number;
  /** A caller session with no request in flight for this long is closed, in ms. @default 300_000 */
  readonly idleTimeoutMs?: number;
  /**
   * The connector caller sessions are opened with: a gateway gives its upstream's own connector here, so that a
   * caller's session ending is not taken for the upstream's. @default the proxy's `upstream` connector (required
   * when `upstream` is an `McpClient`)
   */
  readonly connector?: ClientConnector;
}

/** One upstream session: the shared one, or a caller's. Calls in flight are tagged with it. */
export interface UpstreamSession {
  readonly key: string | undefined;
  /** The connected client (a caller's: once its connect resolved). */
  client: McpClient | undefined;
  /** Front requests being served on it now. */
  busy: number;
  /** When it last served a request (ms, `performance.now()`). */
  used: number;
  /** A caller's: the connect under way (shared by the caller's requests that arrive meanwhile). */
  opening: Promise<McpClient> | undefined;
}

/** The caller of a front request: its authenticated identity, else its session; `undefined` for the shared session. */
export function callerOf(ctx: RequestContext): string | undefined {
  const auth = ctx.authInfo as { readonly clientId?: unknown; readonly subject?: unknown; readonly issuer?: unknown } | undefined;
  if (typeof auth === 'object' && auth !== null) {
    // The user a token names, for the client it was issued to, by its issuer: a subject is unique only within its
    // issuer (OpenID Connect Core 1.0 §2, `sub`), and a front may trust several authorization servers; two clients
    // of one user are two callers, as the HTTP handler binds a session to issuer, subject and client together.
    const part = (value: unknown): string => (typeof value === 'string' ? value : '');
    if (part(auth.subject) !== '' || part(auth.clientId) !== '') return `auth:${JSON.stringify([part(auth.issuer), part(auth.subject), part(auth.clientId)])}`;
  }
  const session = ctx.session?.id;
  return session === undefined ? undefined : `session:${session}`;
}

function positive(name: string, value: number): number {
  if (!(typeof value === 'number' && value > 0)) throw new RangeError(`Invalid sessionPerCaller.${name}: expected a positive number, got ${String(value)}`);
  return value;
}

/** The upstream sessions of one proxy: the shared one, and per caller when enabled; see the module comment. */
export class CallerSessions {
  readonly shared: UpstreamSession;
  readonly #perCaller: boolean;
  readonly #max: number;
  readonly #idleMs: number;
  readonly #open: (session: UpstreamSession) => Promise<McpClient>;
  readonly #logger: Logger;
  /** Caller sessions, least recently used first (a Map keeps insertion order: a use moves the entry to the end). */
  readonly #sessions = new Map<string, UpstreamSession>();
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  constructor(init: { readonly client: McpClient; readonly options: boolean | SessionPerCallerOptions | undefined; readonly open: (session: UpstreamSession) => Promise<McpClient>; readonly logger: Logger }) {
    this.shared = { key: undefined, client: init.client, busy: 0, used: 0, opening: undefined };
    const options = init.options;
    this.#perCaller = options !== undefined && options !== false;
    const settings = typeof options === 'object' ? options : {};
    this.#max = positive('maxSessions', settings.maxSessions ?? DEFAULT_MAX_CALLER_SESSIONS);
    this.#idleMs = positive('idleTimeoutMs', settings.idleTimeoutMs ?? DEFAULT_CALLER_SESSION_IDLE_MS);
    this.#open = init.open;
    this.#logger = init.logger;
  }

  /** Whether callers get sessions of their own. */
  get perCaller(): boolean {
    return this.#perCaller;
  }

  /** Caller sessions open (or opening) now. */
  get size(): number {
    return this.#sessions.size;
  }

  /** The session that serves `ctx`'s caller (made on its first request). @throws McpError -32603 when every session is busy at the bound */
  for(ctx: RequestContext): UpstreamSession {
    if (!this.#perCaller) return this.shared;
    const key = callerOf(ctx);
    if (key === undefined || this.#closed) return this.shared;
    let session = this.#sessions.get(key);
    if (session !== undefined) {
      // Most recently used: to the end.
      this.#sessions.delete(key);
      this.#sessions.set(key, session);
      return session;
    }
    if (this.#sessions.size >= this.#max && !this.#evictOne()) {
      this.#logger.warn('Proxy: every upstream session per caller is in use; a new caller is refused', { max: this.#max });
      throw new McpError(McpErrorCode.InternalError, 'Too many upstream sessions in use');
    }
    session = { key, client: undefined, busy: 0, used: performance.now(), opening: undefined };
    this.#sessions.set(key, session);
    this.#sweep();
    return session;
  }

  /** The connected client of `session`, connecting it on first use; a failed connect forgets the session. */
  client(session: UpstreamSession): McpClient | Promise<McpClient> {
    if (session.client !== undefined) return session.client;
    const opening = (session.opening ??= this.#open(session).then(
      (client) => {
        session.opening = undefined;
        // Closed or evicted while it connected: nobody will close it otherwise.
        if (this.#sessions.get(session.key as string) !== session) void client.close().catch(() => {});
        else session.client = client;
        return client;
      },
      (error: unknown) => {
        session.opening = undefined;
        if (this.#sessions.get(session.key as string) === session) this.#sessions.delete(session.key as string);
        throw error;
      },
    ));
    return opening;
  }

  /** A front session ended: its caller session (keyed by the session) closes now. */
  sessionClosed(id: string | undefined): void {
    if (id === undefined || !this.#perCaller) return;
    const key = `session:${id}`;
    const session = this.#sessions.get(key);
    if (session !== undefined) this.#drop(key, session);
  }

  /** Closes every caller session (the proxy closes). */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    const closing: Promise<void>[] = [];
    for (const session of this.#sessions.values()) if (session.client !== undefined) closing.push(session.client.close().catch(() => {}));
    this.#sessions.clear();
    await Promise.all(closing);
  }

  /** Closes the least recently used session with nothing in flight; false when every one is busy. */
  #evictOne(): boolean {
    for (const [key, session] of this.#sessions) {
      if (session.busy === 0 && session.opening === undefined) {
        this.#drop(key, session);
        return true;
      }
    }
    return false;
  }

  #drop(key: string, session: UpstreamSession): void {
    this.#sessions.delete(key);
    const client = session.client;
    session.client = undefined;
    void client?.close().catch((error: unknown) => this.#logger.debug('Proxy: closing a caller session failed', { error }));
  }

  /** Idle sessions are closed by one unref'd sweep, running while caller sessions exist. */
  #sweep(): void {
    if (this.#sweeper !== undefined) return;
    const every = Math.max(10, Math.min(this.#idleMs / 2, 30_000));
    this.#sweeper = setInterval(() => {
      const now = performance.now();
      for (const [key, session] of this.#sessions) {
        if (session.busy === 0 && session.opening === undefined && now - session.used >= this.#idleMs) this.#drop(key, session);
      }
      if (this.#sessions.size === 0) {
        clearInterval(this.#sweeper);
        this.#sweeper = undefined;
      }
    }, every);
    (this.#sweeper as { unref?: () => void }).unref?.();
  }
}
