/**
 * The MCP HTTP handler: routes a request by path to the Streamable HTTP endpoint (MCP 2025-03-26 … 2025-11-25)
 * or the deprecated 2024-11-05 HTTP+SSE endpoint beside it, both serving the same McpServer, after the Host and
 * Origin checks every path shares; and the Web-standard `(Request) => Promise<Response>` facade over it. The Node
 * adapter (`toNodeListener`, `serveHttp`) drives the same core without building `Request`/`Response` objects: it
 * gets it with {@link httpCoreOf}.
 */
import { DEFAULT_MAX_BATCH_SIZE, DEFAULT_MAX_JSON_DEPTH, neverThrowing, silentLogger } from '@switchboard/jsonrpc';
import type { Logger } from '@switchboard/jsonrpc';
import { CorsPolicy, corsSettings, isOpaqueOrigin } from './cors.js';
import { TEXT_HEADERS } from './endpointContext.js';
import type { EndpointAdmitRequest, EndpointContext } from './endpointContext.js';
import type { HttpInput, HttpOutput } from './inputOutput.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_CALLER,
  DEFAULT_MAX_SSE_BUFFER_BYTES,
  DEFAULT_MAX_SSE_BUFFER_BYTES_TOTAL,
  DEFAULT_MCP_PATH,
  DEFAULT_SESSION_GRACE_MS,
  DEFAULT_SESSION_HANDSHAKE_TIMEOUT_MS,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  DEFAULT_HTTP_SSE_MESSAGES_PATH,
  DEFAULT_HTTP_SSE_PATH,
  DEFAULT_SSE_AFTER_MS,
  DEFAULT_SSE_KEEP_ALIVE_MS,
  DEFAULT_SSE_RETRY_MS,
  defaultCallerIdentity,
  validateHandlerOptions,
} from './handlerOptions.js';
import type { CallerFacts, HttpRefusalEvent, McpHttpHandlerOptions } from './handlerOptions.js';
import { HttpStatus, errorOutput, refusalOutput } from './refusals.js';
import { HostGuard, isSameOrigin } from './security.js';
import { STREAMABLE_HTTP_ALLOW } from './ladder/ladder.js';
import { addressKey, callerAddress, compileTrustProxy, openerOf } from './callerIdentity.js';
import type { ProxyTrust } from './callerIdentity.js';
import { SessionTable } from './sessions/sessionTable.js';
import { ClusterHub } from './sessions/clusterHub.js';
import { DEFAULT_CLUSTER_LEASE_TTL_MS, newInstanceId } from './clusterOptions.js';
import { HttpSseEndpoint } from './httpSse/httpSseEndpoint.js';
import { isLegacyRevision } from '../../../protocol/revisions.js';
import { StreamableEndpoint } from './streamableEndpoint.js';
import { webInput, webResponse } from './web.js';
import { InMemoryEventStore } from '../../../stores/eventStore.js';
import { InMemorySessionStore } from '../../../stores/sessionStore.js';
import { ResourceServer } from './auth/resourceServer.js';
import { calledToolName, toolScopeRefusal } from './auth/toolScopeCheck.js';

/** The handler returned by {@link createMcpHttpHandler}. */
export interface McpHttpHandler {
  /**
   * Answers one request (Web-standard; bound, so `export default { fetch: handler.fetch }` works).
   * Never rejects: an internal failure is answered 500 with a JSON-RPC -32603 body.
   */
  readonly fetch: (request: Request) => Promise<Response>;
  /** Alias of {@link McpHttpHandler.fetch}. */
  readonly handle: (request: Request) => Promise<Response>;
  /** Whether `path` is served by this handler (the endpoint, or a 2024-11-05 HTTP+SSE path). */
  matches(path: string): boolean;
  /** Live sessions (Streamable HTTP and 2024-11-05 HTTP+SSE). */
  readonly sessionCount: number;
  /**
   * The unsent bytes of every open modern (2026-07-28) SSE stream together, read now from each connection: what
   * `maxSseBufferBytesTotal` bounds.
   */
  readonly bufferedSseBytes: number;
  /** Closes every session and stops the idle reaper; later `initialize` requests get 503. Idempotent. */
  close(): Promise<void>;
}

const NOT_FOUND: HttpOutput = Object.freeze({ status: HttpStatus.NotFound, headers: TEXT_HEADERS, body: 'Not Found' });

/** Whether the resource server answered (a refusal) rather than handed the request on. */
function isOutput(verdict: HttpInput | HttpOutput): verdict is HttpOutput {
  return typeof (verdict as Partial<HttpOutput>).status === 'number';
}

/** @internal The runtime-independent core shared by the Web handler and the Node adapter. */
export class HttpCore {
  readonly #logger: Logger;
  readonly #onRefused: ((event: HttpRefusalEvent) => void) | undefined;
  readonly #path: string;
  readonly #ssePath: string | undefined;
  readonly #messagesPath: string | undefined;
  readonly #guard: HostGuard;
  readonly #trust: ProxyTrust | undefined;
  readonly #identify: (facts: CallerFacts) => string | undefined;
  readonly #table: SessionTable;
  readonly #streamable: StreamableEndpoint;
  readonly #httpSse: HttpSseEndpoint | undefined;
  /** CORS for the listed origins; `undefined` when none is listed or `cors: false`. */
  readonly #cors: CorsPolicy | undefined;
  /** The resource server of the `auth` option; `undefined` without it. */
  readonly #auth: ResourceServer | undefined;
  /** With `auth`: the verified `authInfo` of each request, for `onRefused` (a 403 after the token was verified). */
  readonly #verified = new WeakMap<HttpInput, unknown>();
  /** With `auth` and `onRefused`: the tool of a `tools/call` refused `insufficient_scope`, for `onRefused`. */
  readonly #refusedTools = new WeakMap<HttpInput, string>();

  constructor(options: McpHttpHandlerOptions) {
    validateHandlerOptions(options);
    this.#onRefused = options.onRefused;
    const logger = neverThrowing(options.logger ?? options.server.logger ?? silentLogger);
    this.#logger = logger;
    this.#path = options.path ?? DEFAULT_MCP_PATH;
    // The 2024-11-05 transport carries sessions only: a server that serves no session-based revision (e.g.
    // `revisions: ['2026-07-28']`) has no such endpoint unless it is asked for by name.
    const served = options.server.servedRevisions;
    const httpSse = options.httpSse ?? (served === undefined || served.some(isLegacyRevision));
    if (httpSse === false) {
      this.#ssePath = undefined;
      this.#messagesPath = undefined;
    } else {
      const paths = httpSse === true ? {} : httpSse;
      this.#ssePath = paths.ssePath ?? DEFAULT_HTTP_SSE_PATH;
      this.#messagesPath = paths.messagesPath ?? DEFAULT_HTTP_SSE_MESSAGES_PATH;
    }
    this.#guard = new HostGuard({
      protection: options.dnsRebindingProtection ?? true,
      allowedHosts: options.allowedHosts,
      allowedOrigins: options.allowedOrigins,
      allowAnyOrigin: options.allowAnyOrigin,
    });
    this.#trust = compileTrustProxy(options.trustProxy);
    const cors = options.cors ?? true;
    this.#cors = cors === false || !this.#guard.listsOrigins ? undefined : new CorsPolicy(corsSettings(cors));
    if (options.allowAnyOrigin === true) {
      logger.warn('MCP HTTP handler accepts any Origin (allowAnyOrigin: true): any web page can send it requests from a browser; list trusted pages in allowedOrigins instead');
    }
    this.#identify = options.callerIdentity ?? defaultCallerIdentity;
    const auth = options.auth === undefined ? undefined : new ResourceServer({
      auth: options.auth,
      mcpPath: this.#path,
      schemeOf: (input) => this.#schemeOf(input),
      logger,
      hostValidated: options.dnsRebindingProtection ?? true,
    });
    this.#auth = auth;
    const cluster = options.cluster;
    // The hub reads the table when a message arrives, the table reads the hub when it needs it: both lazily.
    const hub = cluster === undefined ? undefined : new ClusterHub({
      bus: cluster.bus,
      leases: cluster.leases,
      instanceId: cluster.instanceId ?? newInstanceId(),
      leaseTtlMs: cluster.leaseTtlMs ?? DEFAULT_CLUSTER_LEASE_TTL_MS,
      logger,
      host: { transportOf: (id) => this.#table.streamable(id)?.transport, closedElsewhere: (id) => this.#table.closedElsewhere(id) },
    });
    this.#table = new SessionTable({
      hub: () => hub,
      store: options.sessionStore ?? new InMemorySessionStore(),
      logger,
      maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
      maxSessionsPerCaller: options.maxSessionsPerCaller ?? DEFAULT_MAX_SESSIONS_PER_CALLER,
      idleMs: options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS,
      handshakeMs: options.sessionHandshakeTimeoutMs ?? DEFAULT_SESSION_HANDSHAKE_TIMEOUT_MS,
      graceMs: options.sessionGraceMs ?? DEFAULT_SESSION_GRACE_MS,
    });
    const context: EndpointContext = {
      server: options.server,
      logger,
      table: this.#table,
      hub,
      body: {
        maxBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
        maxDepth: options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH,
        maxBatch: options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE,
      },
      keepAliveMs: options.sseKeepAliveMs ?? DEFAULT_SSE_KEEP_ALIVE_MS,
      maxSseBufferBytes: options.maxSseBufferBytes ?? DEFAULT_MAX_SSE_BUFFER_BYTES,
      maxSseBufferBytesTotal: options.maxSseBufferBytesTotal ?? DEFAULT_MAX_SSE_BUFFER_BYTES_TOTAL,
      admit: (request) => this.#admit(request),
      internalError: (error) => this.internalError(error),
      callerOf: (input) => this.#callerOf(input),
      authorize: auth === undefined ? undefined : (request) => {
        const refusal = toolScopeRefusal(auth, options.server, request);
        const tool = refusal === undefined || this.#onRefused === undefined ? undefined : calledToolName(request.inbound);
        if (tool !== undefined) this.#refusedTools.set(request.input, tool);
        return refusal;
      },
      principalOf: auth === undefined ? undefined : (input) => auth.principal(input),
    };
    this.#streamable = new StreamableEndpoint(context, {
      responseMode: options.responseMode ?? 'auto',
      sseAfterMs: options.sseAfterMs ?? DEFAULT_SSE_AFTER_MS,
      eventStore: options.eventStore === null ? undefined : (options.eventStore ?? new InMemoryEventStore()),
      retryMs: options.sseRetryMs ?? DEFAULT_SSE_RETRY_MS,
    });
    this.#httpSse = this.#messagesPath === undefined ? undefined : new HttpSseEndpoint(context, this.#messagesPath);
  }

  get logger(): Logger {
    return this.#logger;
  }

  get sessionCount(): number {
    return this.#table.size;
  }

  get bufferedSseBytes(): number {
    return this.#streamable.modernSseBytes;
  }

  /** Refuses new sessions (503) while live ones are still served: the first step of a graceful close. */
  stopAdmitting(): void {
    this.#table.stopAdmitting();
  }

  /** Whether `path` is served: an endpoint, or (with `auth`) a well-known path of the protected resource metadata. */
  matches(path: string): boolean {
    return path === this.#path || path === this.#ssePath || path === this.#messagesPath || (this.#auth?.servesMetadata(path) ?? false);
  }

  /**
   * Answers one exchange. Rejects only on an internal failure; adapters answer that with
   * {@link HttpCore.internalError} (500).
   */
  handle(input: HttpInput): Promise<HttpOutput> {
    const answer = this.#answer(input);
    const onRefused = this.#onRefused;
    return onRefused === undefined ? answer : answer.then((output) => (output.status >= 400 ? this.#tellRefused(onRefused, input, output) : output));
  }

  /** Tells `onRefused` of an answer given before dispatch (its JSON-RPC error read from the body, when it has one). */
  #tellRefused(onRefused: (event: HttpRefusalEvent) => void, input: HttpInput, output: HttpOutput): HttpOutput {
    try {
      let error: { code?: unknown; message?: unknown } | undefined;
      if (output.body !== undefined && output.body.startsWith('{')) {
        const parsed = JSON.parse(output.body) as { error?: { code?: unknown; message?: unknown } };
        error = typeof parsed.error === 'object' && parsed.error !== null ? parsed.error : undefined;
      }
      onRefused({
        status: output.status,
        httpMethod: input.method,
        path: input.path,
        mcpMethod: input.header('mcp-method'),
        code: typeof error?.code === 'number' ? error.code : undefined,
        message: typeof error?.message === 'string' ? error.message : undefined,
        authInfo: this.#verified.get(input) ?? input.authInfo,
        toolName: this.#refusedTools.get(input),
      });
    } catch (error) {
      this.#logger.error('onRefused failed', { error });
    }
    return output;
  }

  #answer(input: HttpInput): Promise<HttpOutput> {
    const path = input.path;
    if (!this.matches(path)) return Promise.resolve(NOT_FOUND);
    const auth = this.#auth;
    if (auth?.servesMetadata(path) === true) {
      // RFC 9728 §3: public metadata, readable by pages of any origin (no Origin check, CORS `*`); Host still checked.
      const host = input.header('host');
      return Promise.resolve(this.#guard.hostAllowed(host) ? auth.metadata(input) : refusalOutput('forbiddenHost', { detail: `'${host ?? ''}'` }));
    }
    const forbidden = this.#checkGuard(input);
    if (forbidden !== undefined) return Promise.resolve(forbidden);
    if (this.#cors !== undefined) return this.#handleCors(input, this.#cors);
    return this.#route(input);
  }

  /**
   * Hands a request that passed the Host and Origin checks to the endpoint of its path; with `auth`, once its bearer
   * token is verified (`auth/resourceServer.ts`: the answer is the refusal otherwise).
   */
  #route(input: HttpInput): Promise<HttpOutput> {
    const auth = this.#auth;
    if (auth === undefined) return this.#routeTo(input);
    return auth.authenticate(input).then((verdict) => {
      if (isOutput(verdict)) return verdict;
      if (this.#onRefused !== undefined) this.#verified.set(input, verdict.authInfo);
      // A session is bound to the principal that opened it (`auth/resourceServer.ts` `sessionRefusal`).
      const foreign = auth.sessionRefusal(verdict);
      return foreign ?? this.#routeTo(verdict).then((output) => {
        const tool = this.#refusedTools.get(verdict);
        if (tool !== undefined) this.#refusedTools.set(input, tool);
        return auth.bindSession(verdict, output);
      });
    });
  }

  #routeTo(input: HttpInput): Promise<HttpOutput> {
    const path = input.path;
    if (path === this.#path) return this.#streamable.handle(input);
    const httpSse = this.#httpSse as HttpSseEndpoint;
    return path === this.#ssePath ? httpSse.open(input) : httpSse.post(input);
  }

  /** The 500 answer to an internal failure (logged; no exception text on the wire). */
  internalError(error: unknown): HttpOutput {
    this.#logger.error('MCP HTTP handler failed', { error });
    return errorOutput(HttpStatus.InternalServerError, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: 'Internal error' },
    });
  }

  /**
   * MCP 2025-11-25 basic/transports.mdx "Security Warning": Host validation (DNS rebinding) and Origin validation
   * (same origin or `allowedOrigins`) ⇒ 403.
   */
  #checkGuard(input: HttpInput): HttpOutput | undefined {
    const host = input.header('host');
    if (!this.#guard.hostAllowed(host)) return refusalOutput('forbiddenHost', { detail: `'${host ?? ''}'` });
    const origin = input.header('origin');
    if (origin !== undefined && !this.#guard.originAllowed(origin, host, this.#schemeOf(input))) {
      return refusalOutput('forbiddenOrigin', { detail: `'${origin}' is not the server's origin and is not in allowedOrigins` });
    }
    return undefined;
  }

  /** The compiled `trustProxy` option (`undefined`: no proxy is trusted). */
  get trust(): ProxyTrust | undefined {
    return this.#trust;
  }

  /** Whether the peer of `input` is a trusted proxy (a peer the runtime does not tell is, once any proxy is). */
  #fromTrustedProxy(input: HttpInput): boolean {
    const trust = this.#trust;
    if (trust === undefined) return false;
    const peer = input.remoteAddress;
    return peer === undefined || trust(peer, 0);
  }

  /**
   * A request when CORS is on (its `Origin` already allowed): a preflight from a listed origin (or the server's own)
   * is answered here; every other answer gets its CORS headers (a failure too, so a page can read its 500).
   * @see Fetch standard "CORS protocol"; MCP 2025-11-25 basic/transports.mdx "Security Warning" (Origin validation
   *   stays the guard's: an origin reaching here is allowed, CORS only lets its page read the answer)
   */
  #handleCors(input: HttpInput, cors: CorsPolicy): Promise<HttpOutput> {
    const origin = input.header('origin');
    // `null` (an opaque origin: sandboxed frames, `data:` and `file:` pages) gets no CORS even when listed: any site
    // can make one, so echoing it would let every site read the answers.
    const corsOrigin = origin !== undefined && !isOpaqueOrigin(origin) && (this.#guard.originListed(origin) || isSameOrigin(origin, input.header('host'), this.#schemeOf(input))) ? origin : undefined;
    if (corsOrigin !== undefined && CorsPolicy.isPreflight(input)) {
      const path = input.path;
      const methods = path === this.#path ? STREAMABLE_HTTP_ALLOW : path === this.#ssePath ? 'GET' : 'POST';
      return Promise.resolve(cors.preflight(input, corsOrigin, methods));
    }
    return this.#route(input).then(
      (output) => cors.answer(output, corsOrigin),
      (error: unknown) => cors.answer(this.internalError(error), corsOrigin),
    );
  }

  /** The scheme the client used: the connection's, or the first `X-Forwarded-Proto` value from a trusted proxy. */
  #schemeOf(input: HttpInput): 'http' | 'https' {
    if (!this.#fromTrustedProxy(input)) return input.scheme;
    const forwarded = input.header('x-forwarded-proto');
    if (forwarded === undefined) return input.scheme;
    const first = forwarded.split(',', 1)[0]?.trim().toLowerCase();
    return first === 'https' ? 'https' : first === 'http' ? 'http' : input.scheme;
  }

  /**
   * Who sent `input`: its address after `trustProxy`, and what `callerIdentity` (default: the principal, else that
   * address, none for loopback while no proxy is trusted) names it.
   */
  #identifyCaller(input: HttpInput): { readonly address: string | undefined; readonly identity: string | undefined } {
    const address = callerAddress(input, this.#trust);
    const identity = this.#identify({
      authInfo: input.authInfo,
      remoteAddress: input.remoteAddress,
      callerAddress: address,
      trustsProxy: this.#trust !== undefined,
      header: (name) => input.header(name),
    });
    return { address, identity: typeof identity === 'string' ? identity : undefined };
  }

  /** Admits a new session (see {@link SessionTable.admit}): the refusal to send, or `undefined` (slot taken). */
  #admit(request: EndpointAdmitRequest): Promise<HttpOutput | undefined> {
    const { sessionId, kind, input, streamPrefix } = request;
    const { address, identity } = this.#identifyCaller(input);
    // Sessions without a budget (loopback, or `callerIdentity` said none) are still grouped by address, so that
    // reclaiming at the cap takes from whoever holds most.
    const group = identity ?? (address === undefined ? '' : addressKey(address));
    return this.#table.admit({ sessionId, kind, caller: identity, group, streamPrefix, opener: openerOf(input.authInfo) });
  }

  /**
   * The caller key of the server's per-caller shares (live tasks, finished task results, listen streams, SSE
   * bytes): `callerIdentity`, the one notion of a caller, else the address. Unlike the session budget, a
   * loopback peer is keyed by its address too: a share is a share, and what the session budget exempts loopback
   * for (a reverse proxy on the same host putting every caller in one budget) is what `callerIdentity` (or a
   * trusted proxy's identity) is for; a key is never missing where an address is known, so no caller on a
   * socket escapes the shares.
   */
  #callerOf(input: HttpInput): string | undefined {
    const { address, identity } = this.#identifyCaller(input);
    return identity ?? (address === undefined ? undefined : addressKey(address));
  }

  close(): Promise<void> {
    return this.#table.close();
  }
}

/** The core of each handler {@link createMcpHttpHandler} made, for {@link httpCoreOf}. */
const CORES = new WeakMap<McpHttpHandler, HttpCore>();

/**
 * @internal The core behind `handler`, for the Node adapter (`transports/node/listener.ts` `toNodeListener`,
 * `transports/node/serveHttp.ts`): it drives the core straight from Node's request and response, and reads the
 * core's logger, proxy trust and admission switch. Called once per adapter, not per request.
 * @throws TypeError when `handler` was not made by {@link createMcpHttpHandler} (a copy or a wrapper has no core)
 */
export function httpCoreOf(handler: McpHttpHandler): HttpCore {
  const core = CORES.get(handler);
  if (core === undefined) throw new TypeError('Invalid handler: expected the object createMcpHttpHandler returned');
  return core;
}

/**
 * Creates the MCP HTTP handler: Streamable HTTP on `path` (POST, GET, DELETE) and, unless disabled, the
 * 2024-11-05 HTTP+SSE transport on `/sse` + `/messages`, all serving `server`.
 *
 * Statuses (each cited in code): 200/202 success; 204 a CORS preflight from an origin in `allowedOrigins` (see
 * `cors`); 400 bad JSON (-32700), invalid message, forbidden batch, batch over
 * `maxBatchSize` or second initialize (-32600), missing `Mcp-Session-Id` or bad `MCP-Protocol-Version` (-32000); 403 foreign
 * `Host`, or an `Origin` that is neither the request's own nor in `allowedOrigins` (any bind address); 404 unknown or ended session (-32001) and unknown paths; 405 other methods (`Allow`); 406
 * unacceptable `Accept`; 409 second GET stream; 413 body over `maxBodyBytes`; 415 non-JSON `Content-Type`; 429 a
 * caller over `maxSessionsPerCaller` and 503 over `maxSessions`, both with `Retry-After` when a slot will free.
 *
 * With `auth` (an OAuth resource server): 401 no or an invalid bearer token, 403 `insufficient_scope` (the server's
 * `requiredScopes` or a tool's `scopes`), 400 a malformed `Authorization` or a token in the query, 503 a verifier
 * that could not tell; each with `WWW-Authenticate` (see {@link McpHttpHandlerOptions.auth}).
 *
 * Error bodies (4xx/5xx) are JSON-RPC error responses with no `id` member when the request id is unknown, and with
 * the id when it is known (field bug B45; see `httpErrorBody`). JSON-RPC responses inside a 200 answer keep
 * `"id": null` (JSON-RPC 2.0 §5).
 *
 * @param options - See {@link McpHttpHandlerOptions}; only `server` is required.
 * @returns The handler; call `close()` when done.
 * @throws TypeError when an option has the wrong type or shape: `server` without `connect`, a `path` (or 2024-11-05 HTTP+SSE
 *   path) not starting with `/` or containing `?`, `#` or spaces, clashing paths, an unknown `responseMode`, host
 *   lists that are not arrays of strings, `allowAnyOrigin` not a boolean, `trustProxy` not a boolean, a list of addresses or CIDR ranges, or a function, `callerIdentity` not a
 *   function, a `sessionStore` without the six {@link SessionStore} methods, `cors` neither a boolean nor an object
 *   (or its `allowCredentials` not a boolean, its header lists not arrays of header names).
 * @throws RangeError when a numeric option is out of range: `maxBodyBytes`, `maxBatchSize`, `maxJsonDepth`,
 *   `maxSessions`, `maxSessionsPerCaller`, `maxSseBufferBytesTotal` not a positive integer; `cors.maxAgeSeconds` not an integer of 0 or more; `sessionIdleTimeoutMs`, `sessionHandshakeTimeoutMs`,
 *   `sessionGraceMs` negative or NaN; `sseRetryMs`,
 *   `sseKeepAliveMs`, `sseAfterMs` negative, NaN or above 2^31 − 1.
 * @see MCP 2025-11-25 basic/transports.mdx "Streamable HTTP"; MCP 2024-11-05 basic/transports.mdx "HTTP with SSE"
 * @example
 * const handler = createMcpHttpHandler({ server });
 * export default { fetch: handler.fetch }; // Bun, Deno, workers
 */
export function createMcpHttpHandler(options: McpHttpHandlerOptions): McpHttpHandler {
  const core = new HttpCore(options);
  const fetch = (request: Request): Promise<Response> => {
    let input: HttpInput;
    try {
      input = webInput(request);
    } catch {
      return Promise.resolve(new Response('Bad Request', { status: HttpStatus.BadRequest, headers: TEXT_HEADERS }));
    }
    return core.handle(input).then(webResponse, (error: unknown) => webResponse(core.internalError(error)));
  };
  const handler: McpHttpHandler = {
    fetch,
    handle: fetch,
    matches: (path: string) => core.matches(path),
    get sessionCount(): number {
      return core.sessionCount;
    },
    get bufferedSseBytes(): number {
      return core.bufferedSseBytes;
    },
    close: () => core.close(),
  };
  CORES.set(handler, core);
  return handler;
}
