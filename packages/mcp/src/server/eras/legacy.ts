/**
 * The session-era rules (2024-11-05 … 2025-11-25) in one place: the `initialize` handshake and
 * `notifications/initialized`, `logging/setLevel`, `resources/subscribe` and
 * `unsubscribe` with their caps, cancellation and progress routing. They read and write the connection's
 * {@link SessionState} and nothing else does.
 *
 * @see MCP 2025-11-25 basic/lifecycle.mdx, basic/utilities/cancellation.mdx, basic/utilities/progress.mdx,
 *   server/utilities/logging.mdx, server/resources.mdx "Subscriptions"
 */
import type { Dispatcher, MethodHandler } from '@switchboard/jsonrpc';
import { echo } from '@switchboard/jsonrpc';
import { LOGGING_LEVEL_RANK, parseCancelled, parseProgressToken } from '../../protocol/notifications.js';
import { LATEST_LEGACY_REVISION, isLegacyRevision, type LegacyRevision, type ProtocolRevision } from '../../protocol/revisions.js';
import type { McpServerTransport } from '../../protocol/transport.js';
import type { Implementation } from '../../protocol/types.js';
import type { CapabilityCache } from '../capabilities.js';
import type { Connection } from '../connection.js';
import type { DispatchContext } from '../connection.js';
import { EMPTY_RESULT, invalidParams, isRecord, paramsRecord, requireString } from '../params.js';
import { SessionState } from '../sessionState.js';

/** Requests that exist only on a session: without one (`McpServer.handle`) they are -32601. */
export const SESSION_REQUESTS: ReadonlySet<string> = new Set(['initialize', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']);

/** The subscription caps (see the `McpServerOptions` members of the same names). */
export interface SubscriptionLimits {
  readonly maxSubscriptionsPerSession: number;
  readonly maxSubscriptionUriLength: number;
  readonly maxSubscriptionCharsTotal: number;
}

/** The session-era rules of one server. */
export class LegacyEra {
  readonly #capabilities: CapabilityCache;
  readonly #limits: SubscriptionLimits;
  readonly #legacyServed: readonly LegacyRevision[];
  /** The total length of every session's subscribed URIs. */
  #subscriptionChars = 0;

  /** @param options the server's capability cache and subscription caps */
  /**
   * @param options `servedRevisions`: the server's revisions (its legacy ones are what `initialize` may settle on,
   *   oldest first)
   */
  constructor(options: { readonly capabilities: CapabilityCache; readonly limits: SubscriptionLimits; readonly servedRevisions: readonly ProtocolRevision[] }) {
    this.#capabilities = options.capabilities;
    this.#limits = options.limits;
    this.#legacyServed = options.servedRevisions.filter(isLegacyRevision);
  }

  /** A connection closed: its subscriptions no longer count towards the server-wide cap. */
  connectionClosed(connection: Connection): void {
    const state = connection.session;
    if (state === undefined) return;
    for (const uri of state.subscriptions) this.#subscriptionChars -= uri.length;
    state.subscriptions.clear();
  }

  /** Registers the session-era methods on the server's dispatcher. */
  register(dispatcher: Dispatcher<DispatchContext>): void {
    const request = (method: string, handler: MethodHandler<DispatchContext>): unknown => dispatcher.register(method, handler, { kind: 'request' });
    const notification = (method: string, handler: MethodHandler<DispatchContext>): unknown => dispatcher.register(method, handler, { kind: 'notification' });
    request('initialize', (params, ctx) => this.#initialize(params, ctx));
    notification('notifications/initialized', (_params, ctx) => {
      const state = ctx.connection?.session;
      if (state !== undefined) state.initialized = true;
    });
    // MCP 2025-11-25 basic/utilities/cancellation.mdx: abort the handler, send no response; unknown or finished
    // ids are ignored (B36); `initialize` is never cancelled.
    // A modern-era cancellation over stdio (MCP 2026-07-28 basic/patterns/cancellation.mdx) cancels the same way.
    notification('notifications/cancelled', (params, ctx) => {
      const connection = ctx.connection ?? ctx.arrivedOn;
      const cancelled = parseCancelled(params);
      if (connection === undefined || cancelled === undefined || cancelled.requestId === connection.session?.initializeRequestId) return;
      connection.peer.cancelInbound(cancelled.requestId, cancelled.reason ?? 'cancelled by the client');
    });
    // Progress for our own server → client requests (MCP 2025-11-25 basic/utilities/progress.mdx).
    notification('notifications/progress', (params, ctx) => {
      const token = parseProgressToken(params);
      if (token !== undefined) ctx.connection?.peer.reportProgress(token, params);
    });
    notification('notifications/roots/list_changed', () => {});
    // MCP 2025-11-25 server/resources.mdx "Subscriptions": both answer an empty result. Subscribing is capped
    // per session (count and URI length) and server-wide; unsubscribing from a URI never subscribed is `{}` too.
    request('resources/subscribe', (params, ctx) => this.#subscribe(requireString(paramsRecord(params), 'uri'), ctx));
    request('resources/unsubscribe', (params, ctx) => {
      const uri = requireString(paramsRecord(params), 'uri');
      if (ctx.connection?.session?.subscriptions.delete(uri) === true) this.#subscriptionChars -= uri.length;
      return EMPTY_RESULT;
    });
    // MCP 2025-11-25 server/utilities/logging.mdx: an unknown level is -32602.
    request('logging/setLevel', (params, ctx) => {
      const level = requireString(paramsRecord(params), 'level');
      const rank = LOGGING_LEVEL_RANK.get(level);
      if (rank === undefined) throw invalidParams(`unknown logging level "${echo(level)}"`);
      const state = ctx.connection?.session;
      if (state !== undefined) state.logLevelRank = rank;
      return EMPTY_RESULT;
    });
  }

  /**
   * MCP 2025-11-25 basic/lifecycle.mdx "Initialization" and "Version Negotiation": answer the requested
   * revision when this server serves it, otherwise counter-offer the newest legacy revision it serves (a server
   * built with `revisions` outside the four legacy ones never gets here: the gate refuses `initialize` with -32022).
   * The transport is told the revision before the result is sent.
   */
  #initialize(params: Parameters<MethodHandler>[0], ctx: DispatchContext & { readonly id: unknown }): unknown {
    const p = paramsRecord(params);
    const requested = requireString(p, 'protocolVersion');
    // Own members only: a polluted Object.prototype declares no capability and names no client.
    const capabilities = Object.hasOwn(p, 'capabilities') ? p.capabilities : undefined;
    const clientInfo = Object.hasOwn(p, 'clientInfo') ? p.clientInfo : undefined;
    if (capabilities !== undefined && !isRecord(capabilities)) throw invalidParams('"capabilities" must be an object');
    if (clientInfo !== undefined && !isRecord(clientInfo)) throw invalidParams('"clientInfo" must be an object');
    const served = this.#legacyServed;
    const version = served.includes(requested as LegacyRevision) ? (requested as LegacyRevision) : (served.at(-1) ?? LATEST_LEGACY_REVISION);
    const connection = ctx.connection!;
    connection.session = new SessionState({
      protocolVersion: version,
      clientCapabilities: capabilities ?? {},
      clientInfo: clientInfo as Implementation | undefined,
      initializeRequestId: ctx.id as SessionState['initializeRequestId'],
      serverCapabilities: this.#capabilities.capabilities,
    });
    (connection.transport as McpServerTransport).setProtocolVersion?.(version);
    return this.#capabilities.initializeResult(version);
  }

  /**
   * `resources/subscribe`: one session's set is bounded (a session once held 129 URIs of 4 MiB and took a
   * 512 MiB heap down). A URI over `maxSubscriptionUriLength`, or a new URI past `maxSubscriptionsPerSession`, is
   * -32602 naming the limit in `data`, with the URI echoed at most 200 characters long; a URI already held is
   * accepted at the cap (subscribing is idempotent).
   */
  #subscribe(uri: string, ctx: DispatchContext): Readonly<Record<string, never>> {
    const subscriptions = ctx.connection!.session!.subscriptions;
    const limits = this.#limits;
    if (uri.length > limits.maxSubscriptionUriLength) {
      throw invalidParams(`"uri" is too long to subscribe to: ${uri.length} characters, the limit is ${limits.maxSubscriptionUriLength}`, {
        uri: echo(uri),
        maxSubscriptionUriLength: limits.maxSubscriptionUriLength,
      });
    }
    if (subscriptions.size >= limits.maxSubscriptionsPerSession && !subscriptions.has(uri)) {
      throw invalidParams(`too many subscriptions: this session already holds the limit of ${limits.maxSubscriptionsPerSession}: unsubscribe from one first`, {
        uri: echo(uri),
        maxSubscriptionsPerSession: limits.maxSubscriptionsPerSession,
      });
    }
    if (!subscriptions.has(uri)) {
      // All sessions together are bounded too: per-session caps times the session cap would be gigabytes.
      if (this.#subscriptionChars + uri.length > limits.maxSubscriptionCharsTotal) {
        throw invalidParams(`too many subscriptions on this server: the URIs of all sessions reached the limit of ${limits.maxSubscriptionCharsTotal} characters`, {
          uri: echo(uri),
          maxSubscriptionCharsTotal: limits.maxSubscriptionCharsTotal,
        });
      }
      subscriptions.add(uri);
      this.#subscriptionChars += uri.length;
    }
    return EMPTY_RESULT;
  }
}
