/**
 * The options of the MCP HTTP handler: their types, their defaults (the `DEFAULT_*` constants) and the validation
 * that refuses values that cannot mean anything, before any session exists.
 */
import { checkCountOption, checkMsOption, shownValue } from '@switchboard/jsonrpc/internal';
import type { Logger } from '@switchboard/jsonrpc';
import { isHeaderName } from './cors.js';
import type { McpCorsOptions } from './cors.js';
import type { ResponseMode } from '../media.js';
import { addressKey, compileTrustProxy, exemptFromShare, principalOf } from './callerIdentity.js';
import type { TrustProxy } from './callerIdentity.js';
import type { McpHttpServerLike } from './serverLike.js';
import type { HttpAuthOptions } from './auth/authOptions.js';
import type { EventStore } from '../../../stores/eventStore.js';
import type { SessionStore } from '../../../stores/sessionStore.js';
import { checkClusterOptions } from './clusterOptions.js';
import type { HttpClusterOptions } from './clusterOptions.js';

/** Default {@link McpHttpHandlerOptions.path}. */
export const DEFAULT_MCP_PATH = '/mcp';
/** Default {@link McpHttpHandlerOptions.maxBodyBytes}: 4 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Default {@link McpHttpHandlerOptions.sessionIdleTimeoutMs}: 30 minutes. */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 30 * 60_000;
/** Default {@link McpHttpHandlerOptions.sessionHandshakeTimeoutMs}: 30 seconds. */
export const DEFAULT_SESSION_HANDSHAKE_TIMEOUT_MS = 30_000;
/** Default {@link McpHttpHandlerOptions.maxSessions}. */
export const DEFAULT_MAX_SESSIONS = 10_000;
/** Default {@link McpHttpHandlerOptions.maxSessionsPerCaller}. */
export const DEFAULT_MAX_SESSIONS_PER_CALLER = 1000;
/** Default {@link McpHttpHandlerOptions.sessionGraceMs}: 10 seconds. */
export const DEFAULT_SESSION_GRACE_MS = 10_000;
/** Default {@link McpHttpHandlerOptions.sseRetryMs}. */
export const DEFAULT_SSE_RETRY_MS = 1000;
/** Default {@link McpHttpHandlerOptions.sseAfterMs}: 50 ms. */
export const DEFAULT_SSE_AFTER_MS = 50;
/** Default {@link McpHttpHandlerOptions.sseKeepAliveMs}. */
export const DEFAULT_SSE_KEEP_ALIVE_MS = 15_000;
/** Default {@link McpHttpHandlerOptions.maxSseBufferBytes}: 8 MiB. */
export { DEFAULT_MAX_SSE_BUFFER_BYTES } from '../sse/sseChannel.js';
/** Default {@link McpHttpHandlerOptions.maxSseBufferBytesTotal}: 64 MiB. */
export { DEFAULT_MAX_SSE_BUFFER_BYTES_TOTAL } from './sseBudget.js';
/** Default {@link HttpSseOptions.ssePath}. */
export const DEFAULT_HTTP_SSE_PATH = '/sse';
/** Default {@link HttpSseOptions.messagesPath}. */
export const DEFAULT_HTTP_SSE_MESSAGES_PATH = '/messages';

/** What {@link McpHttpHandlerOptions.callerIdentity} is given about the request that would open a session. */
export interface CallerFacts {
  /** Authentication facts established upstream (Node: `req.auth`); `undefined` without authentication. */
  readonly authInfo: unknown;
  /** The peer's IP address (Node adapter: the socket's, IPv4-mapped IPv6 shown as IPv4); `undefined` on the Web handler. */
  readonly remoteAddress: string | undefined;
  /**
   * The caller's address after `trustProxy`: the peer's, or behind trusted proxies the nearest untrusted hop of
   * `X-Forwarded-For` (or RFC 7239 `Forwarded`), read from the right. Equals `remoteAddress` without `trustProxy`.
   */
  readonly callerAddress?: string | undefined;
  /** Whether `trustProxy` names any proxy (then loopback callers are budgeted like any other). */
  readonly trustsProxy?: boolean;
  /** A request header by lower-case name (e.g. one a trusted proxy sets). */
  header(name: string): string | undefined;
}

/**
 * The default {@link McpHttpHandlerOptions.callerIdentity}: `client:<clientId>` when `authInfo` is an object with
 * a string `clientId` (the shape of the official SDK's `AuthInfo`), else `address:<callerAddress>` (the address
 * after `trustProxy`), else `undefined` (no per-caller budget). A loopback caller (`127.0.0.0/8`, `::1`) gets
 * `undefined` too while no proxy is trusted: it is a local client, or an unconfigured reverse proxy on the same
 * host behind which every caller would share one budget (name the proxy in `trustProxy` instead).
 */
export function defaultCallerIdentity(facts: CallerFacts): string | undefined {
  const principal = principalOf(facts.authInfo);
  if (principal !== undefined) return `client:${principal}`;
  const address = facts.callerAddress ?? facts.remoteAddress;
  if (address === undefined) return undefined;
  const key = addressKey(address);
  return facts.trustsProxy !== true && exemptFromShare(key, undefined) ? undefined : key;
}

/** Paths of the deprecated 2024-11-05 HTTP+SSE transport. */
export interface HttpSseOptions {
  /** Where `GET` opens the SSE stream. @default '/sse' */
  readonly ssePath?: string;
  /** Where messages are POSTed (`?sessionId=<id>`); announced in the `endpoint` event. @default '/messages' */
  readonly messagesPath?: string;
}

/** {@link createMcpHttpHandler} options. */
export interface McpHttpHandlerOptions {
  /** The server every session is served by. */
  readonly server: McpHttpServerLike;
  /** The Streamable HTTP endpoint path. @default '/mcp' */
  readonly path?: string;
  /**
   * How requests are answered. `auto`: a POST whose `Accept` allows both types is answered by what it produces
   * first: its response alone ⇒ one `application/json` body; a notification (progress, log) or a server→client
   * request first, or nothing within `sseAfterMs` ⇒ a `text/event-stream` (keep-alive, resumable); a client that
   * accepts one type gets that type. `sse` opens a `text/event-stream` per POST carrying requests (progress, logs
   * and server→client requests travel on it). `json` answers with one `application/json` body (related
   * notifications are dropped and server→client requests fail fast). In `auto` and `sse` mode a client whose
   * `Accept` allows only JSON gets JSON (field bug B19). `initialize` is answered with JSON in `auto` mode.
   * @default 'auto'
   * @see MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server" item 5
   */
  readonly responseMode?: ResponseMode;
  /**
   * `responseMode: 'auto'`: how long (ms) a POST that accepts both types waits for its first outbound message
   * before it is answered as SSE. Short enough that a long call gets its stream (keep-alive, resumption) early;
   * long enough that a quick tool (one event-loop turn, a cache or database lookup) is answered with JSON.
   * @default 50
   */
  readonly sseAfterMs?: number;
  /**
   * SSE event history for resumability (`Last-Event-ID`); `null` disables event ids, priming events and
   * resumption. @default a new `InMemoryEventStore` (1000 events per stream, 10 000 streams)
   */
  readonly eventStore?: EventStore | null;
  /** The `retry` hint (ms) sent on priming events and before the server closes a stream on purpose. @default 1000 */
  readonly sseRetryMs?: number;
  /** Interval (ms) of SSE comment keep-alives on long-lived streams (GET, 2024-11-05 `/sse`); `0` disables. @default 15_000 */
  readonly sseKeepAliveMs?: number;
  /**
   * Backpressure on SSE streams whose client does not read. Above 1 MiB unsent on a connection (or half this cap,
   * when smaller) the session transport's `send()` for messages routed to that stream waits until the client read
   * it down, so a handler awaiting `ctx.log()`/`ctx.progress()` pauses. Above this many bytes (senders that do not
   * await) the connection is dropped and what it held released: with an event store the client resumes the
   * stream with `GET` + `Last-Event-ID`; the request keeps running (a disconnect is not a cancellation). The cap is
   * on a backlog: one event larger than it (a 9 MiB tool result) goes out to a client that has kept up. Applies
   * to POST, GET and 2024-11-05 `/sse` streams. @default 8 MiB
   */
  readonly maxSseBufferBytes?: number;
  /**
   * Modern era (2026-07-28, no session): the unsent SSE bytes of every stream together (listen streams and the
   * requests' streams), each stream also capped by `maxSseBufferBytes`. Past it the caller holding the most unsent
   * bytes loses its stream with the largest backlog (the one unread longest): that connection is dropped with what
   * it held, as past `maxSseBufferBytes` (a listen stream ends with no listen result and the client listens
   * again, MCP 2026-07-28 basic/patterns/subscriptions.mdx; a request's stream is then cancelled, as when its
   * client goes). Never grows: an idle listener cannot hold memory another caller needs. @default 64 MiB
   */
  readonly maxSseBufferBytesTotal?: number;
  /**
   * Validate `Host` against `allowedHosts` (DNS rebinding): a foreign value gets 403. `serveHttp` turns it off
   * by default when bound to a non-loopback address without `allowedHosts`. `Origin` is validated either way
   * (see `allowedOrigins`, `allowAnyOrigin`).
   * @default true
   * @see MCP 2025-11-25 basic/transports.mdx "Security Warning"
   */
  readonly dnsRebindingProtection?: boolean;
  /** Allowed `Host` values: `name` (any port) or `name:port`. @default ['localhost', '127.0.0.1', '[::1]'] */
  readonly allowedHosts?: readonly string[];
  /**
   * `Origin` values allowed besides the request's own (`scheme://host[:port]`, exact, case-insensitive): the
   * browser pages that may call the server. A request that carries an `Origin` (`null` included) that is neither
   * its own origin (the scheme it reached the server by, and its `Host` header: host and port) nor listed here gets
   * 403, on every bind address and whatever `dnsRebindingProtection` says. A request without `Origin` (not a
   * browser) is not affected. Listing an origin also turns CORS on for it (see `cors`): preflights are answered and
   * answers expose `Mcp-Session-Id`, so a page there can run a session.
   * @default [] (same-origin only; no CORS)
   * @see MCP 2025-11-25 basic/transports.mdx "Security Warning"; MCP 2026-07-28 streamable-http.mdx "Security & Endpoint"
   * @example
   * createMcpHttpHandler({ server, allowedOrigins: ['https://app.example.com', 'http://localhost:5173'] })
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * CORS answers for browser clients, when `allowedOrigins` lists at least one origin (otherwise no page on another
   * origin may call the server, and no CORS header is ever sent). For a request whose `Origin` is listed (or is the
   * server's own): a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is answered 204 with
   * `Access-Control-Allow-Origin` echoing that origin (never `*`), `Access-Control-Allow-Methods` (the path's:
   * `GET, POST, DELETE` on the endpoint, `GET` on the 2024-11-05 `/sse`, `POST` on `/messages`),
   * `Access-Control-Allow-Headers` (the requested names among `Content-Type`, `Accept`, `Authorization`,
   * `MCP-Protocol-Version`, `Mcp-Session-Id`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, `Last-Event-ID` and
   * `allowHeaders`) and `Access-Control-Max-Age`; other answers carry `Access-Control-Allow-Origin` and
   * `Access-Control-Expose-Headers: Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After` (and
   * `exposeHeaders`). Every answer then carries `Vary: Origin`. An origin not allowed still gets 403, a preflight too.
   * A listed `null` (opaque origins) is served but gets no CORS: any site can send `Origin: null`.
   * `false`: no CORS headers (a framework or proxy in front answers CORS itself); `true` or an object: the defaults
   * of {@link McpCorsOptions}. `allowAnyOrigin` does not extend CORS to unlisted origins.
   * @default true (on for the origins in `allowedOrigins`)
   * @see Fetch standard "CORS protocol" (https://fetch.spec.whatwg.org/#http-cors-protocol); MCP 2025-11-25
   *   basic/transports.mdx "Security Warning" (Origin validation)
   * @example
   * createMcpHttpHandler({ server, allowedOrigins: ['https://app.example.com'], cors: { maxAgeSeconds: 600 } })
   */
  readonly cors?: boolean | McpCorsOptions;
  /**
   * Turn `Origin` validation off: any web page a user visits may then call this server from the browser. Only for
   * servers that authenticate every request some other way. Logged as a warning when set.
   * @default false
   */
  readonly allowAnyOrigin?: boolean;
  /**
   * The reverse proxies in front of the server, whose forwarding headers are believed: `true` (proxies on this host:
   * `127.0.0.0/8`, `::1`), a list of addresses and CIDR ranges (`['10.0.0.0/8', '192.0.2.7', 'loopback']`), or a
   * function `(address, hop) => boolean` (`hop` 0 is the peer). When the peer is trusted:
   * - the caller is the nearest address of `X-Forwarded-For` (or, when absent, the `for=` nodes of RFC 7239
   *   `Forwarded`) that is not a trusted proxy, read from the right — never the first entry, which the client
   *   writes. Every per-caller budget (`maxSessionsPerCaller`, `serveHttp`'s `maxConnectionsPerAddress`) counts
   *   against it, and loopback callers lose their exemption (the proxy itself is no longer a free pass);
   * - the first `X-Forwarded-Proto` value (`http` or `https`) is the scheme the client used, for the same-origin
   *   check (a proxy that terminates TLS).
   * A peer the runtime does not tell (Web handlers) counts as trusted once any proxy is. The proxy must append the
   * client's address (nginx: `proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;`) and pass `Host` on
   * (`proxy_set_header Host $host;`), or list the public origin in `allowedOrigins`. Leave it off when clients reach
   * the server directly: they could write those headers themselves.
   * @default false (no proxy: forwarding headers are ignored)
   * @see RFC 7239 §5.2; RFC 9110 §7.6.3
   * @example
   * serveHttp({ server, host: '127.0.0.1', trustProxy: ['127.0.0.1'] }) // nginx on the same host
   */
  readonly trustProxy?: TrustProxy;
  /** Request body limit in bytes; a larger body gets 413 and is not buffered. @default 4 MiB */
  readonly maxBodyBytes?: number;
  /**
   * The deepest nesting of arrays and objects a request body may have. A deeper body is refused before
   * `JSON.parse` runs (a cheap pre-scan), with HTTP 400 and -32600 `Invalid Request: JSON nested deeper than <n>
   * levels`, `data: { maxDepth }`, id null. @default 64
   */
  readonly maxJsonDepth?: number;
  /**
   * The longest JSON-RPC batch accepted (2025-03-26 sessions). A longer one is refused as a whole with HTTP 400 and
   * one -32600 `Invalid Request: batch of <n> messages exceeds the limit of <max>`, before any member is classified
   * or handled (JSON-RPC 2.0 §6). Keep it at most the server Dispatcher's `maxBatchSize` (which refuses longer
   * batches too, then in the POST's 200 answer). @default 100 (the Dispatcher's default)
   */
  readonly maxBatchSize?: number;
  /** A session with no request and no open stream for this long (ms) is closed; `0` never reaps. @default 1_800_000 (30 min) */
  readonly sessionIdleTimeoutMs?: number;
  /**
   * A session whose client never comes back after opening it (Streamable HTTP: no `notifications/initialized`, no
   * further request or GET after `initialize`; 2024-11-05 HTTP+SSE: no POST after `GET /sse`) is closed after this long (ms), so
   * unauthenticated half-open sessions cannot hold the `maxSessions` slots for the whole idle timeout; `0` never.
   * @default 30_000
   */
  readonly sessionHandshakeTimeoutMs?: number;
  /**
   * How long (ms) after its last request a session that made two or more requests after the handshake is safe from
   * being reclaimed when the table or its caller's budget is full. Sessions that never completed the handshake, or
   * made at most one request after it (what a flood of sessions costs least), have no grace: at the cap they are
   * reclaimed at once. Past the grace an idle session may be reclaimed at the cap; it is not closed otherwise before
   * `sessionIdleTimeoutMs`. Also the longest `Retry-After` a refusal at the cap carries. @default 10_000
   */
  readonly sessionGraceMs?: number;
  /**
   * Live sessions at most (Streamable HTTP and 2024-11-05 HTTP+SSE together). At the cap a new session takes the
   * slot of a reclaimable session — one that is neither busy (a request in flight or an open stream) nor within
   * `sessionGraceMs` of its last request (sessions with at most one request after the handshake have no grace) —
   * chosen from the caller identity (or, without a budget, the address) holding most live sessions, cheapest first,
   * then the longest idle. So a flood from one caller gives its own sessions back and a newcomer from another caller
   * is served at once. When none is reclaimable, the new session gets 503 with `Retry-After`: the seconds until the
   * first session leaves its grace (at most `sessionGraceMs`; none when every session is busy).
   * Memory: an idle session (handshake done, no connection open) costs about 3.7 KiB of heap with `McpServer` and
   * the in-memory stores (`bench/idle-sessions.mjs`, Node 20), so the default cap holds about 37 MiB of idle
   * sessions and 256 MiB of heap holds about 70,000.
   * @default 10_000
   * @see MCP 2025-11-25 basic/transports.mdx "Session Management" (the server MAY terminate a session at any time);
   *   RFC 9110 §15.6.4, §10.2.3
   */
  readonly maxSessions?: number;
  /**
   * Live sessions at most per caller identity (see `callerIdentity`, `trustProxy`). A caller at its budget takes
   * back one of its own reclaimable sessions (the rules of `maxSessions`), or gets 429 with `Retry-After` (the
   * seconds until one of its sessions becomes reclaimable). Keeps one address or client from filling the table with sessions it
   * keeps alive. Only below `maxSessions` does it matter. @default 1000
   * @see RFC 6585 §4
   */
  readonly maxSessionsPerCaller?: number;
  /**
   * Who opens a session, for `maxSessionsPerCaller`: a string key, or `undefined` for no per-caller budget. Behind
   * a reverse proxy, name the proxy in `trustProxy` rather than reading `X-Forwarded-For` here: `callerAddress`
   * is then the client's address as the proxy saw it (the first `X-Forwarded-For` entry is written by the client
   * and must never be trusted). Return an authenticated subject to key on something else.
   * @default {@link defaultCallerIdentity} (the authenticated `clientId`, else the caller's address after
   *   `trustProxy`; loopback unbudgeted while no proxy is trusted)
   * @example
   * createMcpHttpHandler({ server, callerIdentity: ({ authInfo, callerAddress }) => (authInfo as { subject?: string } | undefined)?.subject ?? callerAddress })
   */
  readonly callerIdentity?: (facts: CallerFacts) => string | undefined;
  /**
   * Where session records (opened, last request, phase, caller, TTL, the session's MCP state) are kept; the live
   * transports stay in this process. A request for a session this process does not hold but the store knows
   * (opened on another instance sharing it) is served here: the session is rebuilt from its record (one store read).
   * @default a new `InMemorySessionStore`
   */
  readonly sessionStore?: SessionStore;
  /**
   * Serve the sessions of a cluster of instances (shared `sessionStore`, `eventStore` and bus; no sticky sessions
   * needed): see {@link HttpClusterOptions}. @default none: sessions are served by the instance that opened them
   * (another instance sharing `sessionStore` still rebuilds a session from its record, but server→client requests,
   * cancellations and state changes do not cross instances)
   */
  readonly cluster?: HttpClusterOptions;
  /**
   * Serve the deprecated 2024-11-05 HTTP+SSE transport beside the endpoint; `false` disables.
   * @default true ('/sse', '/messages') when the server serves a session-based revision, else false
   */
  readonly httpSse?: boolean | HttpSseOptions;
  /** Where transport anomalies are reported. @default the server's `logger`, else silent */
  readonly logger?: Logger;
  /**
   * Told of every answer with an HTTP status of 400 or more that the handler gave without handing a request to the
   * server: a Host or Origin refusal, a malformed body, a header mismatch, an unknown session, admission (429/503).
   * Failure analytics count these (`analytics.onHttpRefused` of `@switchboard/mcp/analytics`). Called after the
   * answer is made; a throw is logged and ignored. Without it the handler does nothing for it. @default none
   */
  readonly onRefused?: (event: HttpRefusalEvent) => void;
  /**
   * Makes the handler an OAuth 2.1 resource server (MCP authorization): every request to its endpoints needs a
   * bearer token the verifier accepts for this resource (else 401 with `WWW-Authenticate: Bearer
   * resource_metadata="…", scope="…"`), the protected resource metadata is served at both well-known forms, and a
   * tool declaring `scopes` is refused before dispatch (403 `insufficient_scope`) to a caller lacking one. The
   * verified token reaches handlers as `ctx.authInfo` (an `AuthInfo`). See {@link HttpAuthOptions}.
   * @default none: no authentication (`authInfo` is whatever the Node adapter's `req.auth` holds)
   * @see MCP 2026-07-28 basic/authorization/index.mdx
   */
  readonly auth?: HttpAuthOptions;
}

/** One HTTP answer of status 400 or more given before dispatch (see {@link McpHttpHandlerOptions.onRefused}). */
export interface HttpRefusalEvent {
  /** The HTTP status answered. */
  readonly status: number;
  /** The request's HTTP method (upper-case). */
  readonly httpMethod: string;
  /** The URL path. */
  readonly path: string;
  /** The request's `Mcp-Method` header (2026-07-28 requests), when present. */
  readonly mcpMethod: string | undefined;
  /** The JSON-RPC error code of the answer's body, when it is a JSON-RPC error. */
  readonly code: number | undefined;
  /** The JSON-RPC error message of the answer's body, as it went on the wire. */
  readonly message: string | undefined;
  /**
   * The tool of a `tools/call` refused 403 `insufficient_scope` for a scope the tool declares (its `params.name`;
   * for a batch, when its calls name one tool), so permission failures count under the failing tool. @default none
   */
  readonly toolName?: string | undefined;
  /** The authentication facts established upstream, untouched. */
  readonly authInfo: unknown;
}

function checkPath(name: string, value: string | undefined): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || !value.startsWith('/') || /[?#\s]/.test(value)) {
    throw new TypeError(`Invalid option ${name}: expected a URL path starting with "/" (no query, fragment or spaces), got ${shownValue(value)}`);
  }
}

function checkHostList(name: string, value: readonly string[] | undefined): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string')) {
    throw new TypeError(`Invalid option ${name}: expected an array of strings, got ${shownValue(value)}`);
  }
}

/**
 * Refuses option values that cannot mean anything (the `@throws` of `createMcpHttpHandler`).
 * @throws TypeError when an option has the wrong type or shape.
 * @throws RangeError when a numeric option is out of range.
 */
export function validateHandlerOptions(options: McpHttpHandlerOptions): void {
  if (typeof options !== 'object' || options === null) throw new TypeError(`Invalid options: expected an object, got ${shownValue(options)}`);
  const server = options.server as Partial<McpHttpServerLike> | undefined;
  if (typeof server !== 'object' || server === null || typeof server.connect !== 'function') {
    throw new TypeError(`Invalid option server: expected an McpServer (an object with a connect method), got ${shownValue(server)}`);
  }
  checkPath('path', options.path);
  const httpSse = options.httpSse;
  if (httpSse !== undefined && typeof httpSse !== 'boolean') {
    if (typeof httpSse !== 'object' || httpSse === null) throw new TypeError(`Invalid option httpSse: expected a boolean or an object, got ${shownValue(httpSse)}`);
    checkPath(`httpSse.ssePath`, httpSse.ssePath);
    checkPath(`httpSse.messagesPath`, httpSse.messagesPath);
    const path = options.path ?? DEFAULT_MCP_PATH;
    const ssePath = httpSse.ssePath ?? DEFAULT_HTTP_SSE_PATH;
    const messagesPath = httpSse.messagesPath ?? DEFAULT_HTTP_SSE_MESSAGES_PATH;
    if (ssePath === path || messagesPath === path || ssePath === messagesPath) {
      throw new TypeError(`Invalid option httpSse: the paths must differ from each other and from the endpoint, got ${shownValue(`${path} ${ssePath} ${messagesPath}`)}`);
    }
  } else if (httpSse !== false && (options.path === DEFAULT_HTTP_SSE_PATH || options.path === DEFAULT_HTTP_SSE_MESSAGES_PATH)) {
    throw new TypeError(`Invalid option path: ${shownValue(options.path)} is a 2024-11-05 HTTP+SSE path (set httpSse to other paths or false)`);
  }
  const mode = options.responseMode;
  if (mode !== undefined && mode !== 'auto' && mode !== 'sse' && mode !== 'json') {
    throw new TypeError(`Invalid option responseMode: expected "auto", "sse" or "json", got ${shownValue(mode)}`);
  }
  for (const name of ['maxBodyBytes', 'maxBatchSize', 'maxSseBufferBytes', 'maxSseBufferBytesTotal', 'maxJsonDepth', 'maxSessions', 'maxSessionsPerCaller'] as const) {
    checkCountOption(name, options[name]);
  }
  for (const name of ['sessionIdleTimeoutMs', 'sessionHandshakeTimeoutMs', 'sessionGraceMs'] as const) checkMsOption(name, options[name], { max: Infinity });
  if (options.callerIdentity !== undefined && typeof options.callerIdentity !== 'function') {
    throw new TypeError(`Invalid option callerIdentity: expected a function, got ${shownValue(options.callerIdentity)}`);
  }
  const store = options.sessionStore as Partial<SessionStore> | undefined;
  if (store !== undefined) {
    const missing = (['create', 'get', 'touch', 'delete', 'count', 'scan'] as const).filter((name) => typeof store?.[name] !== 'function');
    if (typeof store !== 'object' || store === null || missing.length > 0) {
      throw new TypeError(`Invalid option sessionStore: expected a SessionStore (create, get, touch, delete, count, scan), got ${shownValue(store)}`);
    }
  }
  checkClusterOptions(options.cluster);
  for (const name of ['sseRetryMs', 'sseKeepAliveMs', 'sseAfterMs'] as const) checkMsOption(name, options[name]);
  checkHostList('allowedHosts', options.allowedHosts);
  checkHostList('allowedOrigins', options.allowedOrigins);
  checkFlag('allowAnyOrigin', options.allowAnyOrigin);
  compileTrustProxy(options.trustProxy);
  checkCors(options.cors);
}

function checkFlag(name: string, value: boolean | undefined): void {
  if (value !== undefined && typeof value !== 'boolean') throw new TypeError(`Invalid option ${name}: expected a boolean, got ${shownValue(value)}`);
}

function checkHeaderNames(name: string, value: readonly string[] | undefined): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string' || !isHeaderName(entry))) {
    throw new TypeError(`Invalid option ${name}: expected an array of header names, got ${shownValue(value)}`);
  }
}

/** The `cors` option: a boolean, or an object of {@link McpCorsOptions}. */
function checkCors(value: boolean | McpCorsOptions | undefined): void {
  if (value === undefined || typeof value === 'boolean') return;
  if (typeof value !== 'object' || value === null) throw new TypeError(`Invalid option cors: expected a boolean or an object, got ${shownValue(value)}`);
  const age = value.maxAgeSeconds;
  if (age !== undefined) {
    if (typeof age !== 'number') throw new TypeError(`Invalid option cors.maxAgeSeconds: expected a number of seconds, got ${shownValue(age)}`);
    if (!Number.isSafeInteger(age) || age < 0) throw new RangeError(`Invalid option cors.maxAgeSeconds: expected an integer of 0 or more seconds, got ${shownValue(age)}`);
  }
  checkFlag('cors.allowCredentials', value.allowCredentials);
  checkHeaderNames('cors.allowHeaders', value.allowHeaders);
  checkHeaderNames('cors.exposeHeaders', value.exposeHeaders);
}
