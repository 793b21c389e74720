/**
 * What a proxy is configured with ({@link ProxyServerOptions}) and its defaults.
 */
import type { Logger } from '@switchboard/jsonrpc';
import type { ClientCapabilities, Implementation } from '@switchboard/mcp';
import type { ClientConnector, McpClient, McpClientOptions } from '@switchboard/mcp/client';
import type { McpServerOptions } from '@switchboard/mcp/server';
import type { SessionPerCallerOptions } from './callerSessions.js';

/** Default of {@link ProxyServerOptions.maxHeldRequests}. */
export const DEFAULT_MAX_HELD_REQUESTS = 1000;
/** Default of {@link ProxyServerOptions.holdTimeoutMs}, in ms. */
export const DEFAULT_HOLD_TIMEOUT_MS = 60_000;
/**
 * Default of {@link ProxyServerOptions.upstreamCapabilities}: every question the proxy can carry to its front clients
 * (form and URL elicitation, sampling, roots with list changes).
 */
export const DEFAULT_UPSTREAM_CAPABILITIES: ClientCapabilities = Object.freeze({ elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } });
/** Default of {@link ProxyServerOptions.maxUpstreamSubscriptions}. */
export const DEFAULT_MAX_UPSTREAM_SUBSCRIPTIONS = 1000;

/** The upstream client's options the proxy lets an application set (the callbacks and listeners are the proxy's). */
export type UpstreamClientOptions = Omit<McpClientOptions, 'connector' | 'onElicitation' | 'onSampling' | 'onListRoots' | 'notifications' | 'capabilities'>;

/** Options of {@link createProxyServer}. */
export interface ProxyServerOptions {
  /**
   * The upstream server: a connector (`spawnStdio({ command, args })` of `@switchboard/mcp/stdio`,
   * `streamableHttp({ url })` or `httpSse({ url })` of `@switchboard/mcp/client`), which the proxy connects once
   * and owns (closed with the proxy), or an `McpClient` already connected, which the proxy uses as it is and never
   * closes. An `McpClient` keeps its own callbacks and listeners: its server's sampling, elicitation and roots
   * requests, its logs and its list changes are not bridged (give a connector for those).
   */
  readonly upstream: ClientConnector | McpClient;
  /** The front's `serverInfo`. @default the upstream's `serverInfo` (else `{ name: 'switchboard-proxy' }`) */
  readonly info?: Implementation;
  /**
   * The front server's options (revisions served, logger, limits, `requestState` keys…). `capabilities` and
   * `instructions` default to the upstream's; `cache` defaults to none (every proxied result uncacheable: a
   * legacy upstream gives no cache hint, and the bridge will not invent one).
   * @default dual-era, every revision
   */
  readonly server?: McpServerOptions;
  /** The upstream client's options (era, pin, timeouts, logger…). `cache` is forced off: the upstream is read live. @default the client's defaults */
  readonly client?: UpstreamClientOptions;
  /**
   * 2026-07-28 front, session-based upstream: how many upstream requests may be held at once while the front's
   * client answers an `input_required` (the upstream's live elicitation, sampling or roots request waits on its
   * session for the retry). Past it, a request that needs input fails with -32603 and the upstream request is
   * cancelled. @default 1000
   */
  readonly maxHeldRequests?: number;
  /**
   * How long a held upstream request waits for the front client's retry, in ms; past it the upstream question is
   * answered with an error and the upstream request is cancelled. @default 60_000
   */
  readonly holdTimeoutMs?: number;
  /** Upstream `resources/subscribe` held at once for the front's subscribers (reference-counted). @default 1000 */
  readonly maxUpstreamSubscriptions?: number;
  /**
   * The client capabilities the upstream is told of (its `initialize`, or each 2026-07-28 request's envelope). One
   * upstream session serves every front client, so it cannot declare per front request what that client declared
   * (MCP 2025-11-25 basic/lifecycle.mdx: capabilities are negotiated once per session): by default it declares all
   * the proxy can carry, and a question the front client did not declare is refused on the front (-32021 at
   * 2026-07-28, -32601 to the upstream). A deployment whose front clients never answer some kind of question (no
   * sampling, say) declares less here, so an upstream tool that adapts to its client's capabilities adapts.
   * @default {@link DEFAULT_UPSTREAM_CAPABILITIES}
   */
  readonly upstreamCapabilities?: ClientCapabilities;
  /**
   * Upstream sessions per front caller, for an upstream that keeps state per session (a login, a working
   * directory, an open document): `true` or bounds. The caller is the authenticated identity (`authInfo.subject`, else `authInfo.clientId`),
   * else the front session (a session-era client); a 2026-07-28 request with neither is served on the shared
   * session. A caller's session is opened on its first request with the upstream's connector (a stdio upstream: one
   * process per caller) and closed when idle for `idleTimeoutMs`, when its front session closes, or, past
   * `maxSessions`, least recently used first (a new caller is refused with -32603 when every one has a request in
   * flight). The catalog, list changes, resource subscriptions, completions and upstream tasks stay on the shared
   * session. A caller's questions (elicitation, sampling, roots) and logs reach only that caller's requests.
   * @default false (one upstream session shared by every front client)
   */
  readonly sessionPerCaller?: boolean | SessionPerCallerOptions;
  /** Where the proxy logs. @default the front server's logger */
  readonly logger?: Logger;
}
